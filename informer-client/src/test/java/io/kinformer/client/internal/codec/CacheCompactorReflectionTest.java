package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceSpec;
import io.kinformer.client.LogCapture;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What {@link CacheCompactor} does when a model field cannot be made accessible. */
class CacheCompactorReflectionTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  /** Refuses {@code selector} as a module that does not open its package would. */
  private static final Consumer<Field> SELECTOR_CLOSED = f -> {
    if (f.getName().equals("selector")) {
      throw new InaccessibleObjectException("module does not open the package (test)");
    }
    f.setAccessible(true);
  };

  @Test
  void inaccessibleField_isLeftAlone_andLoggedOncePerClass() {
    CacheCompactor.Accessors first = CacheCompactor.Accessors.of(ServiceSpec.class, SELECTOR_CLOSED);
    CacheCompactor.Accessors second =
        CacheCompactor.Accessors.of(ServiceSpec.class, SELECTOR_CLOSED);

    for (CacheCompactor.Accessors a : new CacheCompactor.Accessors[] {first, second}) {
      assertThat(Arrays.stream(a.fields()).map(Field::getName))
          .contains("ports", "externalIPs")
          .doesNotContain("selector");
    }
    assertThat(log.text().lines().filter(l -> l.contains("cannot make fields")))
        .singleElement()
        .satisfies(line -> assertThat(line)
            .contains("WARN")
            .contains("[selector] of io.fabric8.kubernetes.api.model.ServiceSpec")
            .contains("module does not open the package (test)")
            .contains("more memory")
            .contains("open package io.fabric8.kubernetes.api.model"));
  }

  @Test
  void accessibleFields_logNothing() {
    CacheCompactor.Accessors a = CacheCompactor.Accessors.of(ServiceSpec.class);

    assertThat(Arrays.stream(a.fields()).map(Field::getName)).contains("selector", "ports");
    assertThat(log.text()).doesNotContain("cannot make fields");
  }
}
