package io.kinformer.cache;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;

/**
 * Coverage-guided fuzzing (Jazzer) of {@link LabelSelector#parse}, beside the seeded random
 * strings of {@link LabelSelectorFuzzTest}, whose property it checks: the only outcomes allowed
 * are a selector that round trips and matches consistently, or an {@link
 * IllegalArgumentException} that quotes the input; no other exception, no hang.
 *
 * <p>The bytes are read twice: as UTF-8 (readable seeds, selector-like text) and as UTF-16BE (any
 * UTF-16 unit, lone surrogates included).
 *
 * <p>A normal build replays the committed corpus in {@code LabelSelectorParseFuzzTestInputs/parse/}
 * (under {@code src/test/resources/io/kinformer/cache/}); the {@code fuzz-label-selector}
 * execution of {@code mvn verify} then fuzzes it for {@code kinformer.fuzz.seconds} (see
 * docs/reliability.md).
 */
@Tag("slow")
class LabelSelectorParseFuzzTest {

  @DictionaryEntries({
    "in", "notin", " in (", " notin (", "!=", "==", "=", "!", "(", ")", ",", ">", "<", "/",
    "example.com/", "-1", "9223372036854775808"
  })
  @FuzzTest(maxDuration = "30s")
  void parse(byte[] data) {
    LabelSelectorFuzzTest.checkParse(new String(data, StandardCharsets.UTF_8));
    LabelSelectorFuzzTest.checkParse(new String(data, StandardCharsets.UTF_16BE));
  }
}
