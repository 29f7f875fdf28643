package io.kinformer.client.internal.http;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.kinformer.client.SharedInformerFactory.InformerOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Field and label selectors are checked when informer options are made, as the server would. */
class FieldSelectorsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "metadata.name=web-0",
        "spec.nodeName==node-1,status.phase!=Running",
        "metadata.name=a\\,b",
        "metadata.name=a\\=b\\\\",
        "a=",
        "a=b,,c=d",
      })
  void validSelectors_areAccepted(String selector) {
    assertThatCode(() -> InformerOptions.all().withFieldSelector(selector)).doesNotThrowAnyException();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "metadata.name | can't understand 'metadata.name'",
        "a=b,c | can't understand 'c'",
        "a=b=c | unescaped '=' in the value 'b=c'",
        "a=b\\x | invalid escape sequence '\\x'",
        "a=b\\ | invalid escape sequence '\\'",
      })
  void malformedSelectors_areRefusedNamingTheTerm(String selector, String problem) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> InformerOptions.all().withFieldSelector(selector))
        .withMessageContaining("invalid field selector: '" + selector + "'")
        .withMessageContaining(problem);
  }

  @ParameterizedTest
  @ValueSource(strings = {"app in (web", "app web", "=web"})
  void malformedLabelSelectors_areRefused(String selector) {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> InformerOptions.all().withLabelSelector(selector));
  }
}
