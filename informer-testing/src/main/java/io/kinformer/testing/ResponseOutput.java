package io.kinformer.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;

/**
 * A buffered, blocking body writer. A body that fits in the buffer goes out in one last write (so
 * it gets a Content-Length, like the real server's small responses); a larger one is streamed in
 * buffer-sized chunks (Transfer-Encoding: chunked on HTTP/1.1).
 *
 * <p>Thread safety: confine to the request's thread.
 */
final class ResponseOutput extends OutputStream {

  private final Response response;
  private final byte[] buf;
  private int len;
  private boolean closed;

  ResponseOutput(Response response, int bufferSize) {
    this.response = response;
    this.buf = new byte[bufferSize];
  }

  @Override
  public void write(int b) throws IOException {
    if (len == buf.length) {
      drain(false);
    }
    buf[len++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int n) throws IOException {
    while (n > 0) {
      if (len == buf.length) {
        drain(false);
      }
      int k = Math.min(n, buf.length - len);
      System.arraycopy(b, off, buf, len, k);
      len += k;
      off += k;
      n -= k;
    }
  }

  /** Sends the status line and headers now, before any body (watches answer at once). */
  void commit() throws IOException {
    Content.Sink.write(response, false, ByteBuffer.allocate(0));
  }

  /** Sends what is buffered now (for watch streams: each batch of events reaches the client). */
  @Override
  public void flush() throws IOException {
    drain(false);
  }

  private void drain(boolean last) throws IOException {
    if (len == 0 && !last) {
      return;
    }
    // The buffer is reused, so the write must complete before we return: Content.Sink.write
    // blocks until then.
    Content.Sink.write(response, last, ByteBuffer.wrap(buf, 0, len));
    len = 0;
  }

  /** Sends the rest as the last write; the response is then complete. */
  @Override
  public void close() throws IOException {
    if (!closed) {
      closed = true;
      drain(true);
    }
  }
}
