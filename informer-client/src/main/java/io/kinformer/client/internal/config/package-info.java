/**
 * Configuration and credentials behind {@code KubeConfig}: kubeconfig parsing and merging
 * ({@code KubeConfigLoader}), the credentials it resolves ({@code AuthConfig}, {@code ExecConfig},
 * {@code PemSource}), bearer tokens from files and exec plugins, and the OkHttp interceptor that
 * sends them.
 *
 * <p>Internal: not API. Nothing here is exported by the module or covered by compatibility
 * promises; any of it may change or go away in any release. Use {@code io.kinformer.client}.
 */
@NullMarked
package io.kinformer.client.internal.config;

import org.jspecify.annotations.NullMarked;
