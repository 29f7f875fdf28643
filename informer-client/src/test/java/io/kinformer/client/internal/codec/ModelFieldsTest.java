package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.client.LogCapture;
import java.lang.reflect.Field;
import java.lang.reflect.InaccessibleObjectException;
import java.util.Arrays;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The one table of reflected fields per model class that compaction and freezing share. */
class ModelFieldsTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  /** Refuses the named fields as a module that does not open its package would. */
  private static Consumer<Field> closed(String... names) {
    Set<String> refused = Set.of(names);
    return f -> {
      if (refused.contains(f.getName())) {
        throw new InaccessibleObjectException("module does not open the package (test)");
      }
      f.setAccessible(true);
    };
  }

  private static Stream<String> names(Field[] fields) {
    return Arrays.stream(fields).map(Field::getName);
  }

  @Test
  void oneTablePerClass_servesBothSides() {
    ModelFields pod = ModelFields.of(Pod.class);

    assertThat(ModelFields.of(Pod.class)).isSameAs(pod);
    assertThat(CacheCompactor.Accessors.of(Pod.class)).isSameAs(pod.compaction());
    assertThat(names(pod.frozen())).contains("metadata", "spec", "status", "additionalProperties");
    assertThat(names(pod.compaction().fields())).containsExactly("additionalProperties");
  }

  @Test
  void inaccessibleFields_areLeftAloneByBothSides_andLoggedOncePerClass() {
    // data: compacted and frozen; binaryData: both too; only the refused ones are left out.
    ModelFields first = ModelFields.scan(ConfigMap.class, closed("data"));
    ModelFields second = ModelFields.scan(ConfigMap.class, closed("data"));

    for (ModelFields t : new ModelFields[] {first, second}) {
      assertThat(names(t.compaction().fields())).contains("binaryData").doesNotContain("data");
      assertThat(names(t.frozen())).contains("binaryData").doesNotContain("data");
    }
    assertThat(log.text().lines().filter(l -> l.contains("cannot make fields")))
        .singleElement()
        .satisfies(line -> assertThat(line)
            .contains("WARN")
            .contains("[data] of io.fabric8.kubernetes.api.model.ConfigMap")
            .contains("more memory")
            .contains("read-only"));
  }

  @Test
  void inaccessibleNestedModelField_isLoggedToo() {
    // A field only the freezer visits: a nested model object, frozen in place.
    ModelFields t = ModelFields.scan(Binding.class, closed("target"));

    assertThat(names(t.frozen())).contains("metadata").doesNotContain("target");
    assertThat(log.text()).contains("[target] of io.fabric8.kubernetes.api.model.Binding");
  }
}
