package io.kinformer.examples;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.kinformer.cache.ApiException;
import io.kinformer.client.Gvr;
import io.kinformer.client.KubeClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * CustomResourceDefinitions for the examples' real-server tests: the real server has no
 * register call as the embedded one has, it serves a resource once its CRD is established.
 */
final class RealServerCrds {
  private static final Gvr CRDS =
      Gvr.of("apiextensions.k8s.io", "v1", "customresourcedefinitions");

  private RealServerCrds() {}

  /**
   * Creates the CRD of {@code resource} (version v1, any content, namespaced) and waits until
   * the server serves it: until the apiextensions server has installed the group, requests for
   * it answer 404.
   *
   * @param annotations for a group under {@code k8s.io}, which needs
   *     {@code api-approved.kubernetes.io}
   */
  static void create(KubeClient client, Gvr resource, String kind,
      Map<String, String> annotations) {
    String singular = kind.toLowerCase(java.util.Locale.ROOT);
    GenericKubernetesResource crd = new GenericKubernetesResource();
    crd.setApiVersion("apiextensions.k8s.io/v1");
    crd.setKind("CustomResourceDefinition");
    crd.setMetadata(new ObjectMetaBuilder()
        .withName(resource.resource() + "." + resource.group())
        .withAnnotations(annotations)
        .build());
    crd.setAdditionalProperty("spec", Map.of(
        "group", resource.group(),
        "scope", "Namespaced",
        "names", Map.of("plural", resource.resource(), "singular", singular, "kind", kind),
        "versions", List.of(Map.of("name", resource.version(), "served", true, "storage", true,
            "schema", Map.of("openAPIV3Schema",
                Map.of("type", "object", "x-kubernetes-preserve-unknown-fields", true))))));
    client.resources(CRDS).create(crd);
    await().atMost(Duration.ofSeconds(60))
        .ignoreExceptionsMatching(e -> e instanceof ApiException a && a.isNotFound())
        .until(() -> client.resources(resource).inAnyNamespace().list() != null);
  }
}
