package io.kinformer.proto.internal;

import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Version;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The fabric8 model class of each group/version/kind, from the resource classes the model jars
 * list for their own deserializer ({@code META-INF/services/...KubernetesResource}) and the
 * {@code @Group}, {@code @Version} and {@code @Kind} annotations that {@code ResourceType.of}
 * reads.
 */
final class Fabric8Kinds {
  private static final Map<String, Class<?>> BY_GVK = load();

  private Fabric8Kinds() {}

  static @Nullable Class<?> of(String group, String version, String kind) {
    return BY_GVK.get(group + "/" + version + "/" + kind);
  }

  private static Map<String, Class<?>> load() {
    Map<String, Class<?>> out = new HashMap<>();
    try {
      ClassLoader loader = Fabric8Kinds.class.getClassLoader();
      Enumeration<URL> lists = loader.getResources(
          "META-INF/services/" + KubernetesResource.class.getName());
      while (lists.hasMoreElements()) {
        try (BufferedReader in = new BufferedReader(
            new InputStreamReader(lists.nextElement().openStream(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = in.readLine()) != null) {
            line = line.strip();
            if (line.isEmpty() || line.startsWith("#")) {
              continue;
            }
            Class<?> c;
            try {
              c = Class.forName(line, false, loader);
            } catch (ClassNotFoundException e) {
              continue;
            }
            Version v = c.getAnnotation(Version.class);
            if (v == null) {
              continue;
            }
            Group g = c.getAnnotation(Group.class);
            Kind k = c.getAnnotation(Kind.class);
            String kind = k != null ? k.value() : c.getSimpleName();
            out.putIfAbsent((g == null ? "" : g.value()) + "/" + v.value() + "/" + kind, c);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
