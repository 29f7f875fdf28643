package io.kinformer.envtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.ApiException;
import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeConfig;
import io.kinformer.client.ResourceClient;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@Tag("real-apiserver")
@ExtendWith(ApiServerExtension.class)
class ApiServerTest {

  @Test
  void version_ofOurServer_isKubernetes1_36_4(ApiServer server) throws IOException {
    assumeTrue(server.binaries().flavor() == ApiServerBinaries.Flavor.KINFORMER,
        "the version is ours to set only for kinformer-apiserver");
    HttpsURLConnection c = (HttpsURLConnection) new URL(server.url() + "/version").openConnection();
    c.setSSLSocketFactory(server.tls());
    c.setRequestProperty("Authorization", "Bearer " + server.token());
    try (InputStream in = c.getInputStream()) {
      assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
          .contains("\"gitVersion\": \"v1.36.4\"");
    }
  }

  @Test
  void kubeconfigs_withTokenAndWithClientCertificate_bothAuthenticate(ApiServer server) {
    String ns = Cluster.newNamespace(server.client(), "auth");
    try (KubeClient byCert = KubeClient.create(KubeConfig.load(server.clientCertificateKubeconfig()))) {
      byCert.resources(ConfigMap.class).inNamespace(ns)
          .create(Cluster.configMap(ns, "by-cert", "x"));
    }

    assertThat(server.client().resources(ConfigMap.class).inNamespace(ns).get("by-cert"))
        .isPresent();
  }

  @Test
  void request_withoutCredentials_isUnauthorized(ApiServer server) throws IOException {
    HttpsURLConnection c =
        (HttpsURLConnection) new URL(server.url() + "/api/v1/namespaces").openConnection();
    c.setSSLSocketFactory(server.tls());

    assertThat(c.getResponseCode()).isEqualTo(401);
  }

  @Test
  void tls_withoutTheGeneratedCa_isRefused(ApiServer server) throws IOException {
    HttpsURLConnection c = (HttpsURLConnection) new URL(server.url() + "/healthz").openConnection();

    assertThatThrownBy(c::getResponseCode).isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void restart_keepsWhatEtcdStores(ApiServer server) {
    String ns = Cluster.newNamespace(server.client(), "restart");
    ResourceClient<ConfigMap> cms = server.client().resources(ConfigMap.class).inNamespace(ns);
    cms.create(Cluster.configMap(ns, "kept", "1"));

    server.restart();

    assertThat(cms.get("kept")).map(cm -> cm.getData().get("value")).contains("1");
  }

  @Test
  void compact_atCurrentRevision_returnsEtcdsRevision(ApiServer server) {
    String ns = Cluster.newNamespace(server.client(), "compact");
    ConfigMap created = server.client().resources(ConfigMap.class).inNamespace(ns)
        .create(Cluster.configMap(ns, "a", "1"));

    long revision = server.compact();

    assertThat(revision)
        .isGreaterThanOrEqualTo(Long.parseLong(created.getMetadata().getResourceVersion()));
    assertThat(server.etcdRevision()).isGreaterThanOrEqualTo(revision);
  }

  @Test
  void close_endsEtcdAndTheServer() {
    List<ProcessHandle> others = children();
    ApiServer server = ApiServer.start();
    List<ProcessHandle> ours = children();
    ours.removeAll(others);
    assertThat(ours).hasSize(2);

    server.close();

    assertThat(ours).noneMatch(ProcessHandle::isAlive);
    assertThat(server.workDir()).doesNotExist();
    assertThatThrownBy(server::client).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void get_ofMissingObject_isEmptyAndUnknownNamespaceListIsEmpty(ApiServer server) {
    ResourceClient<ConfigMap> cms =
        server.client().resources(ConfigMap.class).inNamespace("no-such-namespace");

    assertThat(cms.get("missing")).isEmpty();
    assertThat(cms.list()).isEmpty();
    assertThatThrownBy(() -> cms.update(Cluster.configMap("no-such-namespace", "missing", "x")))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.isNotFound()).isTrue());
  }

  private static List<ProcessHandle> children() {
    return ProcessHandle.current().children()
        .filter(p -> p.info().command().map(c -> c.endsWith("etcd") || c.endsWith("apiserver"))
            .orElse(false))
        .collect(Collectors.toList());
  }
}
