/**
 * client-go's {@code tools/cache} for the JVM: stores and indexers, the DeltaFIFO, the reflector
 * that feeds it by list and watch, and the shared informers that fan changes out to handlers.
 *
 * <p>Objects handed out by this package (from stores, listers and to handlers) are shared with the
 * cache and every other handler, and read-only: {@link io.kinformer.cache.ReadOnlyStore} ("Cached
 * objects") states what they permit. Copy before changing one.
 */
@NullMarked
package io.kinformer.cache;

import org.jspecify.annotations.NullMarked;
