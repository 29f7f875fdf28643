package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * One parsed kubeconfig file: its named clusters, users and contexts (each kept as a labelled
 * YAML node until a context picks it), and its current-context.
 *
 * <p>Thread safety: immutable.
 *
 * @param path the absolute file; relative paths inside it resolve against its parent directory
 * @param display how messages name the file ({@code ~/.kube/config})
 */
record KubeConfigFile(
    Path path,
    String display,
    Map<String, KubeConfigNode> clusters,
    Map<String, KubeConfigNode> users,
    Map<String, KubeConfigNode> contexts,
    @Nullable String currentContext) {

  private static final YAMLMapper YAML = YAMLMapper.builder().build();

  KubeConfigFile {
    clusters = Collections.unmodifiableMap(new LinkedHashMap<>(clusters));
    users = Collections.unmodifiableMap(new LinkedHashMap<>(users));
    contexts = Collections.unmodifiableMap(new LinkedHashMap<>(contexts));
  }

  boolean isEmpty() {
    return clusters.isEmpty() && users.isEmpty() && contexts.isEmpty() && currentContext == null;
  }

  /** The directory that relative paths in this file are relative to. */
  Path baseDirectory() {
    Path parent = path.getParent();
    return parent != null ? parent : path.toAbsolutePath().getRoot();
  }

  /**
   * Reads and parses a file.
   *
   * @throws NoSuchFileException if it does not exist (callers decide whether that is an error)
   * @throws KubeConfigException naming the file if it cannot be read or parsed
   */
  static KubeConfigFile read(Path file, String display) throws NoSuchFileException {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException | SecurityException e) {
      throw new KubeConfigException(
          display + ": cannot read the file (" + e.getClass().getSimpleName() + ")", e);
    }
    return parse(text, file.toAbsolutePath().normalize(), display);
  }

  /**
   * Parses kubeconfig YAML.
   *
   * @param path the file it came from (or stands for), absolute
   */
  static KubeConfigFile parse(String yaml, Path path, String display) {
    if (yaml.isBlank()) {
      // client-go: an empty file is an empty config.
      return new KubeConfigFile(path, display, Map.of(), Map.of(), Map.of(), null);
    }
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JacksonException e) {
      // No cause and only the first line of the problem: parser messages may quote the input.
      throw new KubeConfigException(display + ": malformed YAML" + where(e) + problem(e));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return new KubeConfigFile(path, display, Map.of(), Map.of(), Map.of(), null);
    }
    if (!root.isObject()) {
      throw new KubeConfigException(display + ": malformed kubeconfig: not a YAML mapping");
    }
    KubeConfigNode top = new KubeConfigNode(root, display + ":");
    return new KubeConfigFile(
        path,
        display,
        named(top, display, "clusters", "cluster"),
        named(top, display, "users", "user"),
        named(top, display, "contexts", "context"),
        top.string("current-context"));
  }

  private static String where(JacksonException e) {
    TokenStreamLocation loc = e.getLocation();
    if (loc == null || loc.getLineNr() < 0) {
      return "";
    }
    return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  private static String problem(JacksonException e) {
    String m = e.getOriginalMessage();
    if (m == null || m.isBlank()) {
      return "";
    }
    String first = m.strip().lines().findFirst().orElse("");
    // Quoted input would come after a colon or in quotes; keep the generic part only.
    int quote = first.indexOf('\'');
    if (quote >= 0) {
      first = first.substring(0, quote);
    }
    int q2 = first.indexOf('"');
    if (q2 >= 0) {
      first = first.substring(0, q2);
    }
    first = first.strip();
    return first.isEmpty() ? "" : ": " + (first.length() > 120 ? first.substring(0, 120) : first);
  }

  /**
   * {@code clusters: [{name: x, cluster: {...}}]} into name → node labelled {@code
   * clusters[x].cluster}.
   */
  private static Map<String, KubeConfigNode> named(
      KubeConfigNode top, String display, String listField, String itemField) {
    Map<String, KubeConfigNode> out = new LinkedHashMap<>();
    List<JsonNode> items = top.list(listField);
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = items.get(i);
      String indexLabel = display + ": " + listField + "[" + i + "]";
      if (!item.isObject()) {
        throw new KubeConfigException(
            indexLabel + ": must be a mapping with name and " + itemField);
      }
      KubeConfigNode entry = new KubeConfigNode(item, indexLabel);
      String name = entry.requiredString("name");
      String label = display + ": " + listField + "[" + name + "]";
      if (out.containsKey(name)) {
        // client-go's conversion refuses duplicate names within one file.
        throw new KubeConfigException(label + ": duplicate name");
      }
      KubeConfigNode body = new KubeConfigNode(item, label).object(itemField);
      if (body == null) {
        // An entry without body is an empty one (a user with no credentials, for instance).
        body = new KubeConfigNode(YAML.createObjectNode(), label + "." + itemField);
      }
      out.put(name, body);
    }
    return out;
  }
}
