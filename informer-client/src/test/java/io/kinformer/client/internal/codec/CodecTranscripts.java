package io.kinformer.client.internal.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Test resources copied from the real kube-apiserver transcripts in shared/protocol-transcripts
 * (prefix: the transcript number; trimmed list items keep their {@code "…"} marker key).
 */
public final class CodecTranscripts {

  private CodecTranscripts() {}

  public static String read(String name) {
    try (InputStream in = CodecTranscripts.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
