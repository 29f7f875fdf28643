/**
 * The HTTP transport: calls with timeouts and Status errors ({@code HttpCalls}), list and
 * watch over HTTP ({@code HttpListerWatcher}, {@code HttpWatch}), URL paths, discovery, proxy
 * selection from the environment, and the guards that close idle or cancelled calls.
 *
 * <p>Internal: not API. Nothing here is exported by the module or covered by compatibility
 * promises; any of it may change or go away in any release. Use {@code io.kinformer.client}.
 */
@NullMarked
package io.kinformer.client.internal.http;

import org.jspecify.annotations.NullMarked;
