/**
 * Streaming Jackson codecs: the mappers ({@code Codecs}), the list and watch decoders, the
 * string pool and collection compaction of the cache mapper, and the handling of objects that do
 * not decode.
 *
 * <p>Internal: not API. Nothing here is exported by the module or covered by compatibility
 * promises; any of it may change or go away in any release. Use {@code io.kinformer.client}.
 */
@NullMarked
package io.kinformer.client.internal.codec;

import org.jspecify.annotations.NullMarked;
