package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The JUnit 5 extension: one server per class, injected into fields and parameters. */
class EmbeddedApiServerExtensionTest {

  @RegisterExtension
  static final EmbeddedApiServerExtension API =
      EmbeddedApiServerExtension.with(() -> EmbeddedApiServer.builder().bearerToken("t"));

  static EmbeddedApiServer staticField;
  EmbeddedApiServer field;

  @Test
  void injectsTheSameServer_intoFieldsAndParameters(EmbeddedApiServer parameter) {
    assertThat(field).isSameAs(parameter).isSameAs(staticField).isSameAs(API.server());
    assertThat(parameter.bearerToken()).contains("t");
    assertThat(Files.exists(parameter.kubeConfig())).isTrue();
    assertThat(new Http(parameter).get("/api/v1/namespaces").code()).isEqualTo(200);
  }
}
