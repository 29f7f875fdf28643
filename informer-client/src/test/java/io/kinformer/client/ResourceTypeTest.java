package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PartialObjectMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

class ResourceTypeTest {

  @Test
  void of_coreNamespacedClass_readsGroupVersionPluralKindAndScope() {
    ResourceType<Pod> pods = ResourceType.of(Pod.class);

    assertThat(pods.gvr()).isEqualTo(Gvr.of("", "v1", "pods"));
    assertThat(pods.kind()).isEqualTo("Pod");
    assertThat(pods.namespaced()).isTrue();
    assertThat(pods.javaType()).isEqualTo(Pod.class);
    assertThat(pods.isMetadataOnly()).isFalse();
    assertThat(pods.listAccept()).isEqualTo("application/json");
    assertThat(pods.objectAccept()).isEqualTo("application/json");
  }

  @Test
  void of_clusterScopedClasses_areNotNamespaced() {
    assertThat(ResourceType.of(Namespace.class).namespaced()).isFalse();
    assertThat(ResourceType.of(Node.class).gvr().resource()).isEqualTo("nodes");
    assertThat(ResourceType.of(ConfigMap.class).namespaced()).isTrue();
  }

  @Test
  void metadataOnly_ofClass_keepsTheResourceAndAsksForPartialObjectMetadata() {
    ResourceType<PartialObjectMetadata> meta = ResourceType.metadataOnly(Pod.class);

    assertThat(meta.gvr().resource()).isEqualTo("pods");
    assertThat(meta.kind()).isEqualTo("Pod");
    assertThat(meta.isMetadataOnly()).isTrue();
    assertThat(meta.listAccept())
        .isEqualTo("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1");
    assertThat(meta.objectAccept())
        .isEqualTo("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1");
  }

  @Test
  void fillTypeMeta_setsOnlyWhatIsMissing() {
    Gvr widgets = Gvr.of("example.com", "v1", "widgets");
    ResourceType<GenericKubernetesResource> type = ResourceType.dynamic(widgets, "Widget", true);
    GenericKubernetesResource empty = new GenericKubernetesResource();
    GenericKubernetesResource set = new GenericKubernetesResource();
    set.setKind("Other");
    set.setApiVersion("x/v2");

    type.fillTypeMeta(empty);
    type.fillTypeMeta(set);

    assertThat(empty.getKind()).isEqualTo("Widget");
    assertThat(empty.getApiVersion()).isEqualTo("example.com/v1");
    assertThat(set.getKind()).isEqualTo("Other");
    assertThat(set.getApiVersion()).isEqualTo("x/v2");
  }

  @Test
  void fillTypeMeta_metadataOnly_usesPartialObjectMetadataTypeMeta() {
    PartialObjectMetadata p = new PartialObjectMetadata();

    ResourceType.metadataOnly(Pod.class).fillTypeMeta(p);

    assertThat(p.getKind()).isEqualTo("PartialObjectMetadata");
    assertThat(p.getApiVersion()).isEqualTo("meta.k8s.io/v1");
  }

  @Test
  void equalsAndToString_describeTheResource() {
    assertThat(ResourceType.of(Pod.class)).isEqualTo(ResourceType.of(Pod.class))
        .hasSameHashCodeAs(ResourceType.of(Pod.class))
        .isNotEqualTo(ResourceType.metadataOnly(Pod.class));
    assertThat(ResourceType.of(Pod.class)).hasToString("v1/pods (Pod, namespaced)");
    assertThat(ResourceType.metadataOnly(Namespace.class))
        .hasToString("v1/namespaces (Namespace, cluster-scoped, metadata only)");
  }

  @Test
  void dynamic_emptyKind_isIllegalArgument() {
    assertThatThrownBy(() -> ResourceType.dynamic(Gvr.of("", "v1", "pods"), "",
        true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("v1/pods");
  }

  @Test
  void groupVersionResource_validatesAndFormats() {
    assertThat(Gvr.of("apps", "v1", "deployments"))
        .hasToString("apps/v1/deployments")
        .extracting(Gvr::apiVersion).isEqualTo("apps/v1");
    assertThat(Gvr.of("", "v1", "pods").apiVersion()).isEqualTo("v1");
    assertThatThrownBy(() -> Gvr.of("", "", "pods"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Gvr.of("", "v1", ""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Gvr.of("a/b", "v1", "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/b");
  }
}
