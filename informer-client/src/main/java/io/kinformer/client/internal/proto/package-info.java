/**
 * Protobuf for the built-in types: the schema of their messages, generated from k8s.io/api
 * ({@code informer-client/proto-schema}), and a decoder that turns a message into the JSON tokens
 * of the JSON the API server writes for the same object, so that the codecs of {@code
 * internal.codec} bind it unchanged.
 *
 * <p>Internal: not API. Nothing here is exported by the module or covered by compatibility
 * promises; any of it may change or go away in any release. Use {@code io.kinformer.client}.
 */
@NullMarked
package io.kinformer.client.internal.proto;

import org.jspecify.annotations.NullMarked;
