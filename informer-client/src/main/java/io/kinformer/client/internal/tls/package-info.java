/**
 * TLS for {@code KubeClient}: trust and key managers built from a configuration ({@code
 * TlsSetup}), PEM parsing, client certificates that are reloaded when their files change or an
 * exec plugin rotates them, and the socket factory that sets the TLS server name.
 *
 * <p>Internal: not API. Nothing here is exported by the module or covered by compatibility
 * promises; any of it may change or go away in any release. Use {@code io.kinformer.client}.
 */
@NullMarked
package io.kinformer.client.internal.tls;

import org.jspecify.annotations.NullMarked;
