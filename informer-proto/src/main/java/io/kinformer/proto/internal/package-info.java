/**
 * Protobuf for the built-in types: the schema of their messages, generated from k8s.io/api
 * ({@code informer-proto/proto-schema}), and a decoder that turns a message into the JSON tokens
 * of the JSON the API server writes for the same object, so that the codecs of
 * informer-client and the embedded API server of informer-testing bind it unchanged.
 *
 * <p>Internal: not API. The module exports it only to {@code io.kinformer.client} and {@code
 * io.kinformer.testing}; nothing here is covered by compatibility promises, and any of it may
 * change or go away in any release.
 */
@NullMarked
package io.kinformer.proto.internal;

import org.jspecify.annotations.NullMarked;
