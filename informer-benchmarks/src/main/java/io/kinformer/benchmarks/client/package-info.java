/**
 * JMH micro-benchmarks and heap measurements of informer-client's codecs (the list and watch
 * decoders, the cache mapper, the string pool), through the public members of its internal
 * packages. Not published.
 */
@NullMarked
package io.kinformer.benchmarks.client;

import org.jspecify.annotations.NullMarked;
