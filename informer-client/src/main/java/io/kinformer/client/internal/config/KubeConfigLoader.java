package io.kinformer.client.internal.config;

import io.kinformer.client.KubeConfig;
import io.kinformer.client.KubeConfigException;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Finds, merges and resolves kubeconfig files into a {@link KubeConfig}, following client-go's
 * {@code tools/clientcmd/loader.go} ({@code ClientConfigLoadingRules.Load}) and {@code
 * client_config.go}, with the in-cluster fallback of {@code rest.InClusterConfig}.
 *
 * <p>Merging: for the clusters, users and contexts maps the first file to define a name wins, and
 * the entry is taken whole (fields of a later file's entry of the same name are never mixed in);
 * {@code current-context} comes from the first file that sets it. Relative paths ({@code
 * certificate-authority}, {@code client-certificate}, {@code client-key}, {@code tokenFile}, and an
 * exec {@code command} that contains a path separator) resolve against the directory of the file
 * that defines the entry.
 *
 * <p>The environment and the service-account directory are injected, so tests do not depend on the
 * machine they run on.
 *
 * <p>Thread safety: confine to one thread (one load).
 */
public final class KubeConfigLoader {

  public static final Path IN_CLUSTER_DIRECTORY = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private static final Logger log = LoggerFactory.getLogger(KubeConfigLoader.class);

  private static final Set<String> UNSUPPORTED_USER_FIELDS =
      Set.of("auth-provider", "as", "as-uid", "as-groups", "as-user-extra");

  private final Map<String, String> env;
  private final Path inClusterDirectory;

  public KubeConfigLoader(Map<String, String> env, Path inClusterDirectory) {
    this.env = env;
    this.inClusterDirectory = inClusterDirectory;
  }

  public KubeConfig load(@Nullable Path explicitFile, @Nullable String contextOverride) {
    List<KubeConfigFile> files = new ArrayList<>();
    List<String> tried = new ArrayList<>();
    if (explicitFile != null) {
      String display = display(explicitFile);
      try {
        files.add(KubeConfigFile.read(explicitFile, display));
      } catch (NoSuchFileException e) {
        throw new KubeConfigException(display + ": no such file");
      }
    } else {
      for (Path p : chain()) {
        String display = display(p);
        tried.add(display);
        try {
          files.add(KubeConfigFile.read(p, display));
        } catch (NoSuchFileException e) {
          log.debug("kubeconfig {} does not exist, skipped", display);
        }
      }
    }
    if (explicitFile == null && files.stream().allMatch(KubeConfigFile::isEmpty)) {
      if (inClusterPossible()) {
        log.debug("no kubeconfig in {}; using the in-cluster configuration", tried);
        return inCluster();
      }
      throw new KubeConfigException(
          "no configuration found: tried "
              + (tried.isEmpty()
                  ? "no kubeconfig file (HOME is not set)"
                  : String.join(", ", tried))
              + ", and not running in a cluster (KUBERNETES_SERVICE_HOST and"
              + " KUBERNETES_SERVICE_PORT are not both set)");
    }
    if (explicitFile == null
        && contextOverride == null
        && files.stream().allMatch(f -> f.currentContext() == null)
        && inClusterPossible()) {
      // client-go's deferred loading: a kubeconfig that selects no context is an empty
      // configuration, and an empty configuration in a pod means the in-cluster one.
      log.info("kubeconfig {} sets no current-context; using the in-cluster configuration", tried);
      return inCluster();
    }
    return resolve(files, contextOverride);
  }

  /** KUBECONFIG's files (split, empties dropped, duplicates removed), else ~/.kube/config. */
  public List<Path> chain() {
    String kubeconfig = env.get("KUBECONFIG");
    Set<Path> out = new LinkedHashSet<>();
    if (kubeconfig != null && !kubeconfig.isEmpty()) {
      for (String part : kubeconfig.split(File.pathSeparator, -1)) {
        if (!part.isEmpty()) {
          out.add(toPath("KUBECONFIG", part));
        }
      }
    } else {
      Path home = home();
      if (home != null) {
        out.add(home.resolve(".kube").resolve("config"));
      }
    }
    return List.copyOf(out);
  }

  private @Nullable Path home() {
    String home = env.get("HOME");
    if (home == null || home.isEmpty()) {
      home = env.get("USERPROFILE");
    }
    return home == null || home.isEmpty() ? null : toPath("HOME", home);
  }

  private static Path toPath(String what, String s) {
    try {
      return Path.of(s);
    } catch (InvalidPathException e) {
      throw new KubeConfigException(what + ": not a valid path: " + s);
    }
  }

  /** {@code ~/.kube/config} for files under HOME, the path as given otherwise. */
  String display(Path p) {
    Path home = home();
    Path abs = p.toAbsolutePath().normalize();
    if (home != null) {
      Path h = home.toAbsolutePath().normalize();
      if (abs.startsWith(h) && !abs.equals(h)) {
        return "~" + File.separator + h.relativize(abs);
      }
    }
    return p.toString();
  }

  private KubeConfig resolve(List<KubeConfigFile> files, @Nullable String contextOverride) {
    Map<String, Entry> clusters = new LinkedHashMap<>();
    Map<String, Entry> users = new LinkedHashMap<>();
    Map<String, Entry> contexts = new LinkedHashMap<>();
    String current = null;
    for (KubeConfigFile f : files) {
      f.clusters().forEach((k, v) -> clusters.putIfAbsent(k, new Entry(f, v)));
      f.users().forEach((k, v) -> users.putIfAbsent(k, new Entry(f, v)));
      f.contexts().forEach((k, v) -> contexts.putIfAbsent(k, new Entry(f, v)));
      if (current == null) {
        current = f.currentContext();
      }
    }
    String sources = files.stream().map(KubeConfigFile::display).collect(Collectors.joining(", "));
    String contextName = contextOverride != null ? contextOverride : current;
    if (contextName == null) {
      throw new KubeConfigException(
          sources
              + ": current-context: not set; set it (kubectl config use-context NAME) or choose a"
              + " context with KubeConfig.loader().context(NAME)");
    }
    Entry context = contexts.get(contextName);
    if (context == null) {
      throw new KubeConfigException(
          sources
              + ": "
              + (contextOverride != null ? "context" : "current-context")
              + ": context \""
              + contextName
              + "\" not found; known contexts: "
              + (contexts.isEmpty() ? "none" : String.join(", ", contexts.keySet())));
    }
    KubeConfigNode ctx = context.node();
    String clusterName = ctx.requiredString("cluster");
    Entry cluster = clusters.get(clusterName);
    if (cluster == null) {
      throw new KubeConfigException(
          ctx.field("cluster") + ": cluster \"" + clusterName + "\" not found; known clusters: "
              + (clusters.isEmpty() ? "none" : String.join(", ", clusters.keySet())));
    }
    String userName = ctx.string("user");
    AuthConfig auth;
    if (userName == null) {
      auth = AuthConfig.none(ctx.field("user"));
    } else {
      Entry user = users.get(userName);
      if (user == null) {
        throw new KubeConfigException(
            ctx.field("user") + ": user \"" + userName + "\" not found; known users: "
                + (users.isEmpty() ? "none" : String.join(", ", users.keySet())));
      }
      auth = user(user);
    }
    KubeConfigNode c = cluster.node();
    URI server = KubeConfigAccess.parseServer(c.field("server"), c.requiredString("server"));
    if (server.getScheme().equals("http") && !auth.describe().equals("none")) {
      // client-go's ClientConfig() merges the user's identification only when the transport is
      // TLS (isConfigTransportTLS): credentials never go over plain HTTP, where anyone on the path
      // could read them. client-go drops them silently; a request that then gets 401 or 403 is
      // hard to explain, so say it once.
      log.warn("{}: credentials ({}) are not sent to {}: it is a plain HTTP server; use an"
          + " https:// server URL", auth.origin(), auth.describe(), server);
      auth = AuthConfig.none(auth.origin() + " (not used: the server " + server
          + " is plain HTTP)");
    }
    String namespace = ctx.string("namespace");
    if (namespace != null && namespace.isBlank()) {
      // KubeConfig.builder() refuses a blank namespace too; say which field holds it.
      throw new KubeConfigException(ctx.field("namespace") + ": blank");
    }
    Path base = cluster.file().baseDirectory();
    PemSource ca = pem(c, "certificate-authority-data", "certificate-authority", base);
    String proxy = c.string("proxy-url");
    String source =
        files.size() == 1 ? files.get(0).display() : "KUBECONFIG=" + sources;
    return KubeConfigAccess.create(
        server,
        namespace != null ? namespace : "default",
        contextName,
        source,
        ca,
        c.bool("insecure-skip-tls-verify"),
        c.string("tls-server-name"),
        proxy == null ? null : KubeConfigAccess.parseProxy(c.field("proxy-url"), proxy),
        auth);
  }

  private AuthConfig user(Entry entry) {
    KubeConfigNode u = entry.node();
    Path base = entry.file().baseDirectory();
    for (String f : u.fieldNames()) {
      if (UNSUPPORTED_USER_FIELDS.contains(f) && u.isSet(f)) {
        throw new KubeConfigException(
            u.field(f)
                + ": not supported by kinformer"
                + (f.equals("auth-provider")
                    ? "; use an exec credential plugin (e.g. kubelogin, gke-gcloud-auth-plugin)"
                    : " (impersonation)"));
      }
    }
    Path tokenFile = file(u, "tokenFile", base);
    if (tokenFile != null && !Files.isReadable(tokenFile)) {
      throw new KubeConfigException(u.field("tokenFile") + ": cannot read " + tokenFile);
    }
    return new AuthConfig(
        u.label(),
        u.string("token"),
        tokenFile,
        u.string("username"),
        u.string("password"),
        pem(u, "client-certificate-data", "client-certificate", base),
        pem(u, "client-key-data", "client-key", base),
        exec(u, base));
  }

  private static @Nullable ExecConfig exec(KubeConfigNode user, Path base) {
    KubeConfigNode e = user.object("exec");
    if (e == null) {
      return null;
    }
    String command = e.requiredString("command");
    checkNoNul(e.field("command"), command);
    if (command.indexOf(File.separatorChar) >= 0) {
      try {
        command = base.resolve(command).normalize().toString();
      } catch (InvalidPathException ex) {
        throw new KubeConfigException(e.field("command") + ": not a valid path");
      }
    }
    String apiVersion = e.requiredString("apiVersion");
    if (!apiVersion.equals(ExecConfig.V1) && !apiVersion.equals(ExecConfig.V1BETA1)) {
      throw new KubeConfigException(
          e.field("apiVersion") + ": \"" + apiVersion + "\" is not supported; use "
              + ExecConfig.V1 + " or " + ExecConfig.V1BETA1);
    }
    String mode = e.string("interactiveMode");
    if (mode == null) {
      if (apiVersion.equals(ExecConfig.V1)) {
        // client-go's validation: v1 plugins must say how they interact.
        throw new KubeConfigException(
            e.field("interactiveMode") + ": missing (required for " + ExecConfig.V1 + ")");
      }
      mode = "IfAvailable";
    }
    if (!mode.equals("Never") && !mode.equals("IfAvailable") && !mode.equals("Always")) {
      throw new KubeConfigException(
          e.field("interactiveMode") + ": must be Never, IfAvailable or Always, not " + mode);
    }
    if (mode.equals("Always")) {
      throw new KubeConfigException(
          e.field("interactiveMode")
              + ": Always needs a terminal on stdin, which kinformer never gives a plugin;"
              + " use Never or IfAvailable");
    }
    Map<String, String> env = new LinkedHashMap<>();
    List<JsonNode> vars = e.list("env");
    for (int i = 0; i < vars.size(); i++) {
      JsonNode v = vars.get(i);
      String label = e.field("env") + "[" + i + "]";
      if (!v.isObject()) {
        throw new KubeConfigException(label + ": must be a mapping with name and value");
      }
      KubeConfigNode var = new KubeConfigNode(v, label);
      String name = var.requiredString("name");
      String value = var.string("value");
      // ProcessBuilder refuses these only when the plugin runs, with an exception that quotes
      // the value (often a secret); refuse them here, naming the field and not the value.
      if (name.indexOf('=') >= 0) {
        throw new KubeConfigException(var.field("name") + ": contains '='");
      }
      checkNoNul(var.field("name"), name);
      if (value != null) {
        checkNoNul(var.field("value"), value);
      }
      env.put(name, value == null ? "" : value);
    }
    List<String> args = e.strings("args");
    for (int i = 0; i < args.size(); i++) {
      checkNoNul(e.field("args") + "[" + i + "]", args.get(i));
    }
    return new ExecConfig(
        e.label(),
        command,
        args,
        env,
        apiVersion,
        e.string("installHint"),
        mode,
        e.bool("provideClusterInfo"));
  }

  /** A process's command line and environment are C strings: a NUL cannot be passed. */
  private static void checkNoNul(String field, String value) {
    if (value.indexOf('\0') >= 0) {
      throw new KubeConfigException(field + ": contains a NUL character");
    }
  }

  /** Inline {@code -data} wins over the file, as in client-go's {@code dataFromSliceOrFile}. */
  private static @Nullable PemSource pem(
      KubeConfigNode node, String dataField, String fileField, Path base) {
    byte[] data = node.base64(dataField);
    if (data != null) {
      return PemSource.ofData(node.field(dataField), data);
    }
    Path file = file(node, fileField, base);
    if (file == null) {
      return null;
    }
    if (!Files.isReadable(file)) {
      throw new KubeConfigException(node.field(fileField) + ": cannot read " + file);
    }
    return PemSource.ofFile(node.field(fileField), file);
  }

  private static @Nullable Path file(KubeConfigNode node, String field, Path base) {
    String s = node.string(field);
    if (s == null) {
      return null;
    }
    try {
      return base.resolve(s).normalize();
    } catch (InvalidPathException e) {
      throw new KubeConfigException(node.field(field) + ": not a valid path");
    }
  }

  boolean inClusterPossible() {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    String port = env.get("KUBERNETES_SERVICE_PORT");
    return host != null
        && !host.isEmpty()
        && port != null
        && !port.isEmpty()
        && Files.exists(inClusterDirectory.resolve("token"));
  }

  /**
   * client-go's {@code rest.InClusterConfig}, plus the namespace rule of {@code clientcmd}'s
   * in-cluster config ({@code POD_NAMESPACE}, then the namespace file, then "default").
   */
  public KubeConfig inCluster() {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    String port = env.get("KUBERNETES_SERVICE_PORT");
    if (host == null || host.isEmpty() || port == null || port.isEmpty()) {
      throw new KubeConfigException(
          "in-cluster: not running in a cluster: KUBERNETES_SERVICE_HOST and"
              + " KUBERNETES_SERVICE_PORT must both be set");
    }
    Path token = inClusterDirectory.resolve("token");
    if (!Files.isReadable(token)) {
      throw new KubeConfigException("in-cluster: token: cannot read " + token);
    }
    Path caFile = inClusterDirectory.resolve("ca.crt");
    PemSource ca = null;
    if (Files.isReadable(caFile)) {
      ca = PemSource.ofFile("in-cluster: ca.crt", caFile);
    } else {
      // client-go logs this and goes on with the system trust store.
      log.warn("in-cluster: cannot read the service-account CA {}; using the system trust store",
          caFile);
    }
    String hostPort = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    return KubeConfigAccess.create(
        KubeConfigAccess.parseServer("in-cluster: KUBERNETES_SERVICE_HOST/PORT", "https://" + hostPort),
        inClusterNamespace(),
        null,
        "in-cluster",
        ca,
        false,
        null,
        null,
        new AuthConfig("in-cluster", null, token, null, null, null, null, null));
  }

  private String inClusterNamespace() {
    String podNamespace = env.get("POD_NAMESPACE");
    if (podNamespace != null && !podNamespace.isBlank()) {
      return podNamespace.strip();
    }
    Path file = inClusterDirectory.resolve("namespace");
    try {
      String ns = Files.readString(file).strip();
      if (!ns.isEmpty()) {
        return ns;
      }
    } catch (IOException | SecurityException e) {
      log.debug("in-cluster: no namespace file {}; using \"default\"", file);
    }
    return "default";
  }

  /** A named entry and the file that defined it. */
  private record Entry(KubeConfigFile file, KubeConfigNode node) {}
}
