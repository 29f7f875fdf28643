package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** The extension with a per-class test instance (post-processed before beforeAll). */
@ExtendWith(EmbeddedApiServerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbeddedApiServerExtensionPerClassTest {

  EmbeddedApiServer server;

  @Test
  void injectsOneServer(EmbeddedApiServer parameter) {
    assertThat(server).isSameAs(parameter);
    assertThat(new Http(server).get("/version").code()).isEqualTo(200);
  }
}
