package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kinformer.client.internal.config.ExecConfig;
import io.kinformer.client.internal.config.KubeConfigLoader;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class KubeConfigTest {

  @TempDir Path tmp;

  static Path resource(String name) {
    try {
      return Path.of(KubeConfigTest.class.getResource("/kubeconfig/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private KubeConfig.Loader loader(Map<String, String> env) {
    return new KubeConfig.Loader(env, tmp.resolve("no-service-account"));
  }

  private static String kubeconfigEnv(Path... files) {
    return String.join(File.pathSeparator, Stream.of(files).map(Path::toString).toList());
  }

  @Test
  void load_withSeveralKubeconfigFiles_firstFileToDefineANameWinsWhole() {
    String env =
        kubeconfigEnv(resource("merge/first.yaml"), resource("merge/second.yaml"),
            resource("merge/third.yaml"));

    KubeConfig config = loader(Map.of("KUBECONFIG", env)).load();

    // current-context comes from second.yaml (the first file that sets it), but its cluster
    // "shared" and user "shared-user" are first.yaml's, taken whole.
    assertThat(config.context()).hasValue("ctx-second");
    assertThat(config.server()).isEqualTo(URI.create("https://first.example:6443"));
    assertThat(config.insecureSkipTlsVerify()).isFalse();
    assertThat(config.namespace()).isEqualTo("second-ns");
    assertThat(config.auth().token()).isEqualTo("first-token");
    assertThat(config.auth().username()).isNull();
    assertThat(config.auth().password()).isNull();
    assertThat(config.source()).startsWith("KUBECONFIG=").contains("first.yaml", "third.yaml");
  }

  @Test
  void load_withContextDefinedInTwoFiles_usesTheFirstFilesContext() {
    String env = kubeconfigEnv(resource("merge/first.yaml"), resource("merge/second.yaml"));

    KubeConfig config = loader(Map.of("KUBECONFIG", env)).context("ctx-first").load();

    assertThat(config.server()).isEqualTo(URI.create("https://only-first.example:6443"));
    assertThat(config.namespace()).isEqualTo("first-ns");
  }

  @Test
  void load_withContextOnlyInALaterFile_findsIt() {
    String env =
        kubeconfigEnv(resource("merge/first.yaml"), resource("merge/second.yaml"),
            resource("merge/third.yaml"));

    KubeConfig config = loader(Map.of("KUBECONFIG", env)).context("ctx-third").load();

    assertThat(config.server()).isEqualTo(URI.create("https://only-third.example:6443"));
    assertThat(config.namespace()).isEqualTo("default");
    assertThat(config.auth().describe()).isEqualTo("none");
  }

  @Test
  void load_withMissingAndDuplicateAndEmptyKubeconfigEntries_skipsThem() {
    String env =
        kubeconfigEnv(tmp.resolve("missing.yaml"), resource("merge/second.yaml"))
            + File.pathSeparator
            + File.pathSeparator
            + resource("merge/second.yaml");

    KubeConfig config = loader(Map.of("KUBECONFIG", env)).load();

    assertThat(config.server()).isEqualTo(URI.create("https://second.example:6443"));
    assertThat(new KubeConfigLoader(Map.of("KUBECONFIG", env), tmp).chain()).hasSize(2);
  }

  @Test
  void load_withoutKubeconfigVariable_readsHomeKubeConfig() throws IOException {
    Path home = tmp.resolve("home");
    Files.createDirectories(home.resolve(".kube"));
    Files.copy(resource("merge/second.yaml"), home.resolve(".kube/config"));

    KubeConfig config = loader(Map.of("HOME", home.toString())).load();

    assertThat(config.server()).isEqualTo(URI.create("https://second.example:6443"));
    assertThat(config.source()).isEqualTo("~" + File.separator + ".kube" + File.separator
        + "config");
  }

  @Test
  void load_withKubeconfigVariable_ignoresHomeKubeConfig() throws IOException {
    Path home = tmp.resolve("home");
    Files.createDirectories(home.resolve(".kube"));
    Files.copy(resource("merge/second.yaml"), home.resolve(".kube/config"));

    KubeConfig config =
        loader(Map.of("HOME", home.toString(), "KUBECONFIG", resource("merge/third.yaml")
            .toString())).load();

    assertThat(config.server()).isEqualTo(URI.create("https://only-third.example:6443"));
  }

  @Test
  void load_withRelativePaths_resolvesThemAgainstTheFilesDirectory() {
    Path dir = resource("relative/config").getParent();

    KubeConfig config = KubeConfig.load(resource("relative/config"));

    assertThat(config.certificateAuthority().file()).isEqualTo(dir.resolve("certs/ca.crt"));
    assertThat(config.auth().clientCertificate().file())
        .isEqualTo(dir.resolve("certs/client.crt"));
    assertThat(config.auth().clientKey().file()).isEqualTo(dir.resolve("certs/client.key"));
    assertThat(config.auth().tokenFile()).isEqualTo(dir.resolve("certs/token"));
  }

  @Test
  void load_withExecCommandContainingASeparator_resolvesItButLeavesPathCommandsAlone() {
    Path dir = resource("relative/config").getParent();

    KubeConfig relative =
        KubeConfig.loader().file(resource("relative/config")).context("rel-exec").load();
    KubeConfig onPath =
        KubeConfig.loader().file(resource("relative/config")).context("path-exec").load();

    assertThat(relative.auth().exec().command())
        .isEqualTo(dir.resolve("bin/plugin.sh").toString());
    assertThat(onPath.auth().exec().command()).isEqualTo("aws");
  }

  @Test
  void load_eachAuthMethod_isReadFromItsContext() {
    Path file = resource("auth/all-methods.yaml");
    KubeConfig.Loader loader = KubeConfig.loader().file(file);

    KubeConfig token = loader.context("token").load();
    assertThat(token.auth().token()).isEqualTo("sample-token");
    assertThat(token.namespace()).isEqualTo("team-a");
    assertThat(token.tlsServerName()).hasValue("kube.internal");
    assertThat(token.proxyUrl()).hasValue(URI.create("socks5://proxy.example:1080"));
    assertThat(new String(token.certificateAuthority().read())).contains("BEGIN CERTIFICATE");

    KubeConfig basic = loader.context("basic").load();
    assertThat(basic.auth().username()).isEqualTo("alice");
    assertThat(basic.auth().password()).isEqualTo("sample-password");
    assertThat(basic.namespace()).isEqualTo("default");

    KubeConfig cert = loader.context("cert-data").load();
    assertThat(cert.auth().clientCertificate().read()).asString().isEqualTo("cert");
    assertThat(cert.auth().clientKey().read()).asString().isEqualTo("key");
    assertThat(cert.auth().clientKey().label())
        .endsWith("all-methods.yaml: users[cert-data].user.client-key-data");

    ExecConfig exec = loader.context("exec-v1beta1").load().auth().exec();
    assertThat(exec.command()).isEqualTo("gke-gcloud-auth-plugin");
    assertThat(exec.args()).containsExactly("--flag", "value");
    assertThat(exec.env()).containsExactly(Map.entry("FOO", "bar"));
    assertThat(exec.apiVersion()).isEqualTo(ExecConfig.V1BETA1);
    assertThat(exec.interactiveMode()).isEqualTo("IfAvailable");
    assertThat(exec.provideClusterInfo()).isTrue();
    assertThat(exec.installHint()).contains("gcloud components install");

    assertThat(loader.context("anonymous").load().auth().describe()).isEqualTo("none");
    assertThat(loader.context("no-user").load().auth().describe()).isEqualTo("none");
  }

  @Test
  void toString_ofEveryAuthMethod_showsNoSecret() {
    KubeConfig.Loader loader = KubeConfig.loader().file(resource("auth/all-methods.yaml"));
    for (String ctx : List.of("token", "basic", "cert-data", "exec-v1beta1")) {
      KubeConfig config = loader.context(ctx).load();
      assertThat(config.toString() + config.auth() + config.auth().exec())
          .doesNotContain("sample-token", "sample-password", "Y2VydA==", "a2V5", "value", "bar");
    }
    KubeConfig built =
        KubeConfig.builder()
            .server("https://h")
            .basicAuth("u", "builder-password")
            .proxyUrl("http://puser:proxy-password@proxy:3128")
            .clientCertPem("CERT")
            .clientKeyPem("builder-key-material")
            .build();
    assertThat(built.toString())
        .contains("https://h", "basic", "client-certificate", "***@proxy:3128")
        .doesNotContain("builder-password", "proxy-password", "builder-key-material");
  }

  record BadFile(String name, String file, String context, List<String> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadFile> badFiles() {
    return Stream.of(
        new BadFile("missing current-context", "no-current-context.yaml", null,
            List.of("no-current-context.yaml: current-context: not set")),
        new BadFile("unknown current-context", "unknown-context.yaml", null,
            List.of("unknown-context.yaml: current-context: context \"missing\" not found",
                "known contexts: ctx")),
        new BadFile("unknown requested context", "no-current-context.yaml", "nope",
            List.of("no-current-context.yaml: context: context \"nope\" not found")),
        new BadFile("bad base64", "bad-base64.yaml", null,
            List.of("bad-base64.yaml: users[dev].user.client-key-data: not valid base64")),
        new BadFile("malformed YAML", "malformed.yaml", null,
            List.of("malformed.yaml: malformed YAML at line")),
        new BadFile("missing server", "missing-server.yaml", null,
            List.of("missing-server.yaml: clusters[c].cluster.server: missing")),
        new BadFile("unknown cluster", "unknown-cluster.yaml", null,
            List.of("unknown-cluster.yaml: contexts[ctx].context.cluster: cluster \"nowhere\""
                + " not found")),
        new BadFile("unknown user", "unknown-user.yaml", null,
            List.of("unknown-user.yaml: contexts[ctx].context.user: user \"ghost\" not found")),
        new BadFile("two auth methods", "two-auth-methods.yaml", null,
            List.of("two-auth-methods.yaml: users[dev].user: more than one authentication method",
                "token, username/password")),
        new BadFile("duplicate name", "duplicate-name.yaml", null,
            List.of("duplicate-name.yaml: clusters[c]: duplicate name")),
        new BadFile("auth-provider", "auth-provider.yaml", null,
            List.of("auth-provider.yaml: users[dev].user.auth-provider: not supported",
                "exec credential plugin")),
        new BadFile("exec v1 without interactiveMode", "exec-v1-no-interactive-mode.yaml", null,
            List.of("users[dev].user.exec.interactiveMode: missing")),
        new BadFile("exec v1alpha1", "exec-v1alpha1.yaml", null,
            List.of("users[dev].user.exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\""
                + " is not supported")),
        new BadFile("missing CA file", "missing-ca-file.yaml", null,
            List.of("missing-ca-file.yaml: clusters[c].cluster.certificate-authority: cannot read",
                "no/such/ca.crt")),
        new BadFile("CA and insecure", "ca-and-insecure.yaml", null,
            List.of("insecure-skip-tls-verify and a certificate authority cannot both be set")),
        new BadFile("server not http", "not-a-url.yaml", null,
            List.of("clusters[c].cluster.server: must be an http or https URL")),
        new BadFile("certificate without key", "cert-without-key.yaml", null,
            List.of("users[dev].user: client-certificate is set without client-key")),
        new BadFile("blank namespace", "blank-namespace.yaml", null,
            List.of("blank-namespace.yaml: contexts[x].context.namespace: blank")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void load_badFile_failsNamingFileAndField(BadFile c) throws IOException {
    KubeConfig.Loader loader = KubeConfig.loader().file(resource("bad/" + c.file()));
    if (c.context() != null) {
      loader.context(c.context());
    }

    assertThatThrownBy(loader::load)
        .isInstanceOf(KubeConfigException.class)
        .satisfies(
            e -> {
              for (String fragment : c.expected()) {
                assertThat(e.getMessage()).contains(fragment);
              }
              String content = Files.readString(resource("bad/" + c.file()));
              for (String secret :
                  List.of("c2VjcmV0LWtleQ", "malformed-secret-token", "two-methods-token",
                      "two-methods-password", "provider-secret")) {
                if (content.contains(secret)) {
                  assertThat(e.getMessage()).doesNotContain(secret);
                  assertThat(String.valueOf(e.getCause())).doesNotContain(secret);
                }
              }
            });
  }

  @Test
  void load_explicitFileThatDoesNotExist_failsNamingIt() {
    Path missing = tmp.resolve("nope.yaml");

    assertThatThrownBy(() -> KubeConfig.load(missing))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage(missing + ": no such file");
  }

  @Test
  void load_unreadableFile_failsNamingIt() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("a-directory"));

    assertThatThrownBy(() -> loader(Map.of("KUBECONFIG", dir.toString())).load())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageStartingWith(dir + ": cannot read the file");
  }

  @Test
  void load_homeFileError_namesItWithTilde() throws IOException {
    Path home = tmp.resolve("home");
    Files.createDirectories(home.resolve(".kube"));
    Files.copy(resource("bad/bad-base64.yaml"), home.resolve(".kube/config"));

    assertThatThrownBy(() -> loader(Map.of("HOME", home.toString())).load())
        .hasMessage("~" + File.separator + ".kube" + File.separator + "config:"
            + " users[dev].user.client-key-data: not valid base64");
  }

  @Test
  void load_withNothingConfigured_failsListingWhatWasTried() {
    assertThatThrownBy(() -> loader(Map.of("HOME", tmp.toString())).load())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("no configuration found: tried ~" + File.separator + ".kube")
        .hasMessageContaining("not running in a cluster");
  }

  @Test
  void load_emptyKubeconfigFile_countsAsNoConfiguration() throws IOException {
    Path empty = Files.writeString(tmp.resolve("empty"), "");

    assertThatThrownBy(() -> loader(Map.of("KUBECONFIG", empty.toString())).load())
        .hasMessageContaining("no configuration found");
  }

  @Test
  void load_impersonation_isRefusedButEmptyFieldsAreIgnored() throws IOException {
    String template =
        """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "https://h"}}]
        users: [{name: u, user: {token: t, %s}}]
        contexts: [{name: ctx, context: {cluster: c, user: u}}]
        """;
    Path empty = Files.writeString(tmp.resolve("empty"), template.formatted(
        "as: '', as-groups: [], as-user-extra: {}"));
    Path set = Files.writeString(tmp.resolve("set"), template.formatted("as-groups: [admins]"));

    assertThat(KubeConfig.load(empty).auth().token()).isEqualTo("t");
    assertThatThrownBy(() -> KubeConfig.load(set))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage(set + ": users[u].user.as-groups: not supported by kinformer (impersonation)");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badExecStrings")
  void load_execWithCharactersAProcessCannotTake_failsNamingTheFieldNotTheValue(
      String field, String exec, String expected) throws IOException {
    Path file = Files.writeString(tmp.resolve("config"), """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "https://h"}}]
        users:
        - name: u
          user:
            exec: {apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, %s}
        contexts: [{name: ctx, context: {cluster: c, user: u}}]
        """.formatted(exec));

    assertThatThrownBy(() -> KubeConfig.load(file))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage(file + ": users[u].user.exec." + expected)
        .hasNoCause();
  }

  static Stream<Arguments> badExecStrings() {
    return Stream.of(
        Arguments.of("env value",
            "command: p, env: [{name: A, value: a}, {name: KEY, value: \"exec-secret\\0x\"}]",
            "env[1].value: contains a NUL character"),
        Arguments.of("env name with =",
            "command: p, env: [{name: \"KEY=exec-secret\", value: v}]",
            "env[0].name: contains '='"),
        Arguments.of("env name with NUL",
            "command: p, env: [{name: \"KEY\\0exec-secret\", value: v}]",
            "env[0].name: contains a NUL character"),
        Arguments.of("argument",
            "command: p, args: [ok, \"--token=exec-secret\\0\"]",
            "args[1]: contains a NUL character"),
        Arguments.of("command",
            "command: \"./bin/p\\0exec-secret\"", "command: contains a NUL character"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("serversWithPasswords")
  void load_badServerWithUserInfo_failsWithoutQuotingThePassword(String server, String expected)
      throws IOException {
    Path file = Files.writeString(tmp.resolve("config"), """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "%s"}}]
        contexts: [{name: ctx, context: {cluster: c}}]
        """.formatted(server));

    assertThatThrownBy(() -> KubeConfig.load(file))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage(file + ": clusters[c].cluster.server: " + expected)
        .hasNoCause();
  }

  static Stream<Arguments> serversWithPasswords() {
    return Stream.of(
        Arguments.of("https://admin:s3cret pw@host:6443", "not a valid URL: https://***@host:6443"),
        Arguments.of("admin:s3cret@host", "must be an http or https URL: ***@host"),
        Arguments.of("ftp://admin:s3cret@host/x", "must be an http or https URL: ftp://***@host/x"),
        Arguments.of("https://admin:s3cret@/path", "has no host: https://***@/path"),
        Arguments.of("https://admin:p@ss:s3cret@host", "has no host: https://***@host"),
        Arguments.of("https://admin:s3cret@host:6443", "must not contain user info"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tokensAHeaderCannotCarry")
  void load_tokenAHeaderCannotCarry_failsNamingTheField(String name, String yaml, String expected)
      throws IOException {
    Path file = Files.writeString(tmp.resolve("config"), """
        current-context: ctx
        clusters: [{name: c, cluster: {server: "https://h"}}]
        users:
        - name: u
          user:
            token: %s
        contexts: [{name: ctx, context: {cluster: c, user: u}}]
        """.formatted(yaml));

    assertThatThrownBy(() -> KubeConfig.load(file))
        .isInstanceOf(KubeConfigException.class)
        .hasMessage(file + ": users[u].user.token: " + expected)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("tok-secret"));
  }

  static Stream<Arguments> tokensAHeaderCannotCarry() {
    return Stream.of(
        Arguments.of("block scalar", "|\n      tok-secret",
            "ends with a line break, which cannot be sent in an HTTP header"),
        Arguments.of("two lines", "\"tok-secret\\nmore\"",
            "contains a line break (character 11), which cannot be sent in an HTTP header"),
        Arguments.of("control character", "\"tok\\u0001secret\"",
            "contains a control character (character 4), which cannot be sent in an HTTP"
                + " header"),
        Arguments.of("non-ASCII", "\"tok-secr\u00e9t\"",
            "contains a non-ASCII character (character 9), which cannot be sent in an HTTP"
                + " header"));
  }

  @Test
  void builder_tokenWithALineBreak_failsNamingIt() {
    assertThatThrownBy(() -> KubeConfig.builder().server("https://h").token("tok-secret\n").build())
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("KubeConfig.builder().token: ends with a line break, which cannot be sent in"
            + " an HTTP header");
  }

  // In-cluster

  private Path serviceAccount(String token, String namespace) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("serviceaccount"));
    Files.writeString(dir.resolve("token"), token);
    Files.writeString(dir.resolve("ca.crt"), "CA");
    if (namespace != null) {
      Files.writeString(dir.resolve("namespace"), namespace + "\n");
    }
    return dir;
  }

  private static final Map<String, String> IN_CLUSTER_ENV =
      Map.of("KUBERNETES_SERVICE_HOST", "10.96.0.1", "KUBERNETES_SERVICE_PORT", "443");

  @Test
  void load_withoutKubeconfigInAPod_usesTheServiceAccount() throws IOException {
    Path dir = serviceAccount("sa-token", "team-b");

    KubeConfig config = new KubeConfig.Loader(IN_CLUSTER_ENV, dir).load();

    assertThat(config.server()).isEqualTo(URI.create("https://10.96.0.1:443"));
    assertThat(config.namespace()).isEqualTo("team-b");
    assertThat(config.source()).isEqualTo("in-cluster");
    assertThat(config.auth().tokenFile()).isEqualTo(dir.resolve("token"));
    assertThat(config.certificateAuthority().file()).isEqualTo(dir.resolve("ca.crt"));
    assertThat(config.context()).isEmpty();
  }

  @Test
  void load_withMissingKubeconfigFileInAPod_fallsBackToInCluster() throws IOException {
    Path dir = serviceAccount("sa-token", null);
    Map<String, String> env =
        Map.of("KUBERNETES_SERVICE_HOST", "fd00::1", "KUBERNETES_SERVICE_PORT", "6443",
            "KUBECONFIG", tmp.resolve("absent").toString());

    KubeConfig config = new KubeConfig.Loader(env, dir).load();

    assertThat(config.server()).isEqualTo(URI.create("https://[fd00::1]:6443"));
    assertThat(config.namespace()).isEqualTo("default");
  }

  @Test
  void load_withKubeconfigSelectingNoContextInAPod_fallsBackToInCluster() throws IOException {
    // As client-go: a kubeconfig without current-context is an empty configuration.
    Path dir = serviceAccount("sa-token", null);
    Map<String, String> env = new java.util.HashMap<>(IN_CLUSTER_ENV);
    env.put("KUBECONFIG", resource("bad/no-current-context.yaml").toString());

    KubeConfig config = new KubeConfig.Loader(env, dir).load();

    assertThat(config.source()).isEqualTo("in-cluster");
    assertThat(config.server()).isEqualTo(URI.create("https://10.96.0.1:443"));
    // Outside a pod the same file still fails, naming what is missing.
    Map<String, String> outside = Map.of("KUBECONFIG", env.get("KUBECONFIG"));
    assertThatThrownBy(() -> new KubeConfig.Loader(outside, dir).load())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("current-context: not set");
  }

  @Test
  void inCluster_withPodNamespaceVariable_prefersIt() throws IOException {
    Path dir = serviceAccount("sa-token", "from-file");
    Map<String, String> env =
        Map.of("KUBERNETES_SERVICE_HOST", "h", "KUBERNETES_SERVICE_PORT", "1",
            "POD_NAMESPACE", "from-env");

    assertThat(new KubeConfig.Loader(env, dir).inCluster().namespace()).isEqualTo("from-env");
  }

  @Test
  void inCluster_outsideACluster_failsNamingTheVariables() {
    assertThatThrownBy(() -> new KubeConfig.Loader(Map.of(), tmp).inCluster())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT");
  }

  @Test
  void inCluster_withoutTokenFile_failsNamingIt() {
    assertThatThrownBy(() -> new KubeConfig.Loader(IN_CLUSTER_ENV, tmp).inCluster())
        .isInstanceOf(KubeConfigException.class)
        .hasMessage("in-cluster: token: cannot read " + tmp.resolve("token"));
  }

  // Builder

  @Test
  void builder_withExplicitSettings_buildsThem() {
    KubeConfig config =
        KubeConfig.builder()
            .server("https://api.example:6443/prefix")
            .namespace("ns")
            .token("t")
            .insecureSkipTlsVerify(true)
            .tlsServerName("api.internal")
            .build();

    assertThat(config.server()).isEqualTo(URI.create("https://api.example:6443/prefix"));
    assertThat(config.namespace()).isEqualTo("ns");
    assertThat(config.insecureSkipTlsVerify()).isTrue();
    assertThat(config.tlsServerName()).hasValue("api.internal");
    assertThat(config.source()).isEqualTo("KubeConfig.builder()");
    assertThat(config.toBuilder().namespace("other").build().namespace()).isEqualTo("other");
  }

  @Test
  void builder_withoutServer_isIllegalState() {
    assertThatThrownBy(() -> KubeConfig.builder().build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void builder_withTwoAuthMethods_fails() {
    assertThatThrownBy(
            () -> KubeConfig.builder().server("https://h").token("t").basicAuth("u", "p").build())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("more than one authentication method");
  }

  @Test
  void builder_withHttpsProxy_failsExplaining() {
    assertThatThrownBy(
            () -> KubeConfig.builder().server("https://h").proxyUrl("https://p:3128").build())
        .isInstanceOf(KubeConfigException.class)
        .hasMessageContaining("https proxies are not supported");
  }

  @Test
  void loader_blankContext_isIllegalArgument() {
    assertThatThrownBy(() -> KubeConfig.loader().context(" "))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
