package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.Keys.NamespacedName;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys as client-go makes and splits them ({@code MetaNamespaceKeyFunc}, {@code
 * DeletionHandlingMetaNamespaceKeyFunc}, {@code SplitMetaNamespaceKey}; store_test.go and
 * object-names.go).
 */
class KeysTest {

  record KeyCase(String name, HasMetadata obj, String expectedKey) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Pod pod(@Nullable String namespace, @Nullable String name) {
    return new PodBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
        .build();
  }

  static Stream<KeyCase> keyCases() {
    Namespace clusterScoped = new NamespaceBuilder().withNewMetadata().withName("kube-system")
        .endMetadata().build();
    return Stream.of(
        new KeyCase("namespaced", pod("ns", "web-0"), "ns/web-0"),
        new KeyCase("cluster-scoped", clusterScoped, "kube-system"),
        new KeyCase("empty namespace is cluster-scoped", pod("", "web-0"), "web-0"),
        new KeyCase("null namespace is cluster-scoped", pod(null, "web-0"), "web-0"),
        new KeyCase("no name in a namespace", pod("ns", null), "ns/"),
        new KeyCase("empty name in a namespace", pod("ns", ""), "ns/"),
        new KeyCase("no name, no namespace", pod(null, null), ""),
        new KeyCase("no metadata", new Pod(), ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keyCases")
  void metaNamespaceKey_ofObject_isClientGosKey(KeyCase c) {
    assertThat(Keys.metaNamespaceKey(c.obj())).isEqualTo(c.expectedKey());
    assertThat(Keys.keyOf(c.obj())).isEqualTo(c.expectedKey());
    assertThat(Keys.<HasMetadata>metaNamespaceKeyFunc().key(c.obj())).isEqualTo(c.expectedKey());
    assertThat(Keys.keyFunc().key(c.obj())).isEqualTo(c.expectedKey());
    assertThat(Keys.deletionHandlingMetaNamespaceKey(c.obj())).isEqualTo(c.expectedKey());
  }

  record SplitCase(String key, String namespace, String name) {
    @Override
    public String toString() {
      return "\"" + key + "\"";
    }
  }

  static Stream<SplitCase> splitCases() {
    return Stream.of(
        new SplitCase("ns/name", "ns", "name"),
        new SplitCase("name", "", "name"),
        new SplitCase("", "", ""),
        new SplitCase("ns/", "ns", ""),
        new SplitCase("/name", "", "name"),
        new SplitCase("/", "", ""),
        new SplitCase(" ns / name ", " ns ", " name "));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("splitCases")
  void split_withAtMostOneSlash_givesClientGosParts(SplitCase c) {
    assertThat(Keys.split(c.key())).isEqualTo(new NamespacedName(c.namespace(), c.name()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keyCases")
  void split_ofAnObjectsKey_givesItsNamespaceAndName(KeyCase c) {
    String key = Keys.metaNamespaceKey(c.obj());
    NamespacedName split = Keys.split(key);
    String namespace = c.obj().getMetadata() == null ? null : c.obj().getMetadata().getNamespace();
    String name = c.obj().getMetadata() == null ? null : c.obj().getMetadata().getName();
    assertThat(split.namespace()).isEqualTo(namespace == null ? "" : namespace);
    assertThat(split.name()).isEqualTo(name == null ? "" : name);
    assertThat(split.key()).isEqualTo(key);
  }

  record BadKeyCase(String key, String message) {
    @Override
    public String toString() {
      return message;
    }
  }

  static Stream<BadKeyCase> badKeys() {
    return Stream.of(
        new BadKeyCase("a/b/c", "unexpected key format: \"a/b/c\""),
        new BadKeyCase("//", "unexpected key format: \"//\""),
        new BadKeyCase("ns/a/", "unexpected key format: \"ns/a/\""),
        new BadKeyCase("a\"b/c\\d/e\n", "unexpected key format: \"a\\\"b/c\\\\d/e\\n\""),
        new BadKeyCase("a/b/\u0001", "unexpected key format: \"a/b/\\x01\""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badKeys")
  void split_withMoreThanOneSlash_throwsClientGosMessage(BadKeyCase c) {
    assertThatThrownBy(() -> Keys.split(c.key()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(c.message());
  }

  @Test
  void namespacedNameKey_isTheInverseOfSplit() {
    assertThat(new NamespacedName("ns", "name").key()).isEqualTo("ns/name");
    assertThat(new NamespacedName("", "name").key()).isEqualTo("name");
    assertThat(new NamespacedName("ns", "").key()).isEqualTo("ns/");
    assertThat(new NamespacedName("", "").key()).isEmpty();
  }

  @Test
  void keyOf_explicitKey_isTheKeyItself() {
    // client-go's MetaNamespaceKeyFunc(ExplicitKey("...")): any string, even one split rejects.
    for (String key : List.of("ns/name", "name", "", "a/b/c")) {
      assertThat(Keys.keyOf(new ExplicitKey(key))).isEqualTo(key);
      assertThat(Keys.keyFunc().key(new ExplicitKey(key))).isEqualTo(key);
      assertThat(Keys.deletionHandlingMetaNamespaceKey(new ExplicitKey(key))).isEqualTo(key);
    }
    assertThat(new ExplicitKey("ns/name")).hasToString("ns/name");
  }

  @Test
  void keyOf_whenNotAKubernetesObject_throwsNoMeta() {
    assertThatThrownBy(() -> Keys.keyOf("ns/name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("object has no meta: java.lang.String");
    assertThatThrownBy(() -> Keys.deletionHandlingMetaNamespaceKey(42))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("object has no meta: java.lang.Integer");
  }

  @Test
  void deletionHandlingMetaNamespaceKey_ofTombstone_isTheKeyItCarries() {
    ConfigMap cm = TestObjects.configMap("other", "cm", Map.of());
    assertThat(Keys.deletionHandlingMetaNamespaceKey(new DeletedFinalStateUnknown<>("ns/x", cm)))
        .isEqualTo("ns/x");
  }

  @Test
  void keyException_exposesObjectAndCause_andKeepsContentOutOfTheMessage() {
    Pod secretish = pod("ns", "db");
    secretish.getMetadata().setAnnotations(Map.of("password", "hunter2"));
    IllegalArgumentException cause = new IllegalArgumentException("boom");

    KeyException e = new KeyException(secretish, cause);

    assertThat(e).isInstanceOf(InformerException.class);
    assertThat(e.obj()).isSameAs(secretish);
    assertThat(e.getCause()).isSameAs(cause);
    assertThat(e.getMessage())
        .isEqualTo("couldn't create key for object Pod namespace=\"ns\" name=\"db\": boom")
        .doesNotContain("hunter2");
    assertThat(new KeyException(List.of(), cause).getMessage())
        .isEqualTo("couldn't create key for object list of size 0: boom");
    assertThat(new KeyException("x", cause).getMessage())
        .isEqualTo("couldn't create key for object of type java.lang.String: boom");
  }
}
