package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import org.junit.jupiter.api.Test;

/** HTTP/1.1, h2 over TLS with the generated certificate, h2c, and bearer-token auth. */
class TransportTest {

  private static OkHttpClient.Builder trusting(X509Certificate cert) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setCertificateEntry("apiserver", cert);
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(
        TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    X509TrustManager tm = (X509TrustManager) tmf.getTrustManagers()[0];
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new javax.net.ssl.TrustManager[] {tm}, null);
    return new OkHttpClient.Builder().sslSocketFactory(ctx.getSocketFactory(), tm);
  }

  @Test
  void tls_negotiatesH2ByAlpn_withTheGeneratedCertificateTrustedExplicitly() throws Exception {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().tls(true).start()) {
      assertThat(server.url().getScheme()).isEqualTo("https");
      X509Certificate cert = server.certificate().orElseThrow();
      Http h2 = new Http(server, trusting(cert));
      Http.Reply r = h2.get("/api/v1/namespaces/default");
      assertThat(r.code()).isEqualTo(200);
      assertThat(r.protocol()).isEqualTo(Protocol.HTTP_2);
      h2.createPod("default", "p", "x");
      try (Http.WatchStream w = h2.watch("/api/v1/namespaces/default/pods?watch=1")) {
        assertThat(w.response.protocol()).isEqualTo(Protocol.HTTP_2);
        assertThat(Http.name(w.next())).isEqualTo("p");
        h2.labelPod("default", "p", "k", "v");
        assertThat(Http.type(w.next())).isEqualTo("MODIFIED");
        server.faults().closeAllWatches();
        w.assertEnds();
      }
      Http h1 = new Http(server, trusting(cert).protocols(List.of(Protocol.HTTP_1_1)));
      assertThat(h1.get("/api/v1/namespaces/default").protocol()).isEqualTo(Protocol.HTTP_1_1);
      assertThat(server.kubeConfigYaml()).contains("certificate-authority-data: ")
          .contains("server: " + server.url());
    }
  }

  @Test
  void plainServer_speaksH2cWithPriorKnowledge_andHttp11() {
    try (EmbeddedApiServer server = EmbeddedApiServer.start()) {
      Http h2c = new Http(server, Http.h2cPriorKnowledge());
      Http.Reply r = h2c.get("/api/v1/namespaces/default");
      assertThat(r.code()).isEqualTo(200);
      assertThat(r.protocol()).isEqualTo(Protocol.H2_PRIOR_KNOWLEDGE);
      try (Http.WatchStream w = h2c.watch("/api/v1/namespaces?watch=1")) {
        assertThat(Http.type(w.next())).isEqualTo("ADDED");
      }
      assertThat(new Http(server).get("/api/v1/namespaces").protocol())
          .isEqualTo(Protocol.HTTP_1_1);
      try (Http.WatchStream w = h2c.watch("/api/v1/namespaces/default/pods?watch=1")) {
        org.awaitility.Awaitility.await().until(() -> server.faults().openWatches("pods") == 1);
        server.faults().resetAllWatches();
        assertThat(w.assertFails()).isInstanceOf(java.io.IOException.class);
      }
    }
  }

  @Test
  void bearerToken_isRequired_otherwise401() {
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().bearerToken("s3cret").start()) {
      Http anonymous = new Http(server.url().toString(), null, new OkHttpClient.Builder());
      Http wrong = new Http(server.url().toString(), "nope", new OkHttpClient.Builder());
      assertThat(wrong.get("/api/v1/namespaces").code()).isEqualTo(401);
      Http.Reply r = anonymous.get("/api/v1/namespaces/default/pods");
      assertThat(r.code()).isEqualTo(401);
      assertThat(r.body()).isEqualTo("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
          + "\"status\":\"Failure\",\"message\":\"Unauthorized\",\"reason\":\"Unauthorized\","
          + "\"code\":401}\n");
      assertThat(r.headers().get("X-Kubernetes-Pf-Flowschema-Uid")).isNull();
      assertThat(anonymous.get("/api/v1/namespaces/default/pods?watch=1").code()).isEqualTo(401);
      assertThat(new Http(server).get("/api/v1/namespaces/default/pods").code()).isEqualTo(200);
      assertThat(server.kubeConfigYaml()).contains("token: s3cret");
    }
  }
}
