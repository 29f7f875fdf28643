import org.jspecify.annotations.NullMarked;

/**
 * Informers for a real cluster: {@code KubeConfig} and {@code KubeClient}, list and watch over
 * HTTP, the REST client and the {@code SharedInformerFactory}, all in {@code io.kinformer.client}.
 *
 * <p>Only {@code io.kinformer.client} is exported. Its {@code internal.*} packages (configuration
 * and credentials, TLS, the HTTP transport, the codecs) are not: they may change in any release.
 *
 * <p>{@code InformerProbes.registerWith} takes the JDK's {@code HttpServer}, so {@code
 * jdk.httpserver} is required transitively. Jackson decodes the fabric8 model classes (automatic
 * modules, open to reflection). A model class of the application's own (a typed custom resource)
 * must be in a package that its module opens to {@code tools.jackson.databind}, which decodes it,
 * and to {@code io.kinformer.client}, which sets its {@code kind} and compacts its collections.
 */
@NullMarked
module io.kinformer.client {
  requires transitive io.kinformer.core;
  requires transitive jdk.httpserver;
  requires okhttp3;
  requires tools.jackson.databind;
  requires tools.jackson.dataformat.yaml;
  requires org.slf4j;
  requires static transitive org.jspecify;

  exports io.kinformer.client;
}
