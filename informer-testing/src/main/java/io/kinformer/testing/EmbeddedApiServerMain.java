package io.kinformer.testing;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * Runs an {@link EmbeddedApiServer} on its own until the process is stopped (Ctrl-C), and prints
 * the path of its kubeconfig:
 *
 * <pre>
 * java -jar informer-testing/target/kinformer-apiserver.jar --port 6443 --tls --token secret
 * kubectl --kubeconfig /tmp/kinformer-apiserver-.../kubeconfig get pods -A
 * </pre>
 *
 * <p>Options: {@code --port N} (default 0: a free port), {@code --tls}, {@code --token T}.
 *
 * <p>Thread safety: not applicable (a program).
 */
public final class EmbeddedApiServerMain {

  private EmbeddedApiServerMain() {}

  /** Starts the server and blocks until the JVM shuts down. */
  public static void main(String[] args) throws InterruptedException {
    EmbeddedApiServer.Builder b = EmbeddedApiServer.builder();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--port":
          b.port(Integer.parseInt(value(args, ++i, "--port")));
          break;
        case "--tls":
          b.tls(true);
          break;
        case "--token":
          b.bearerToken(value(args, ++i, "--token"));
          break;
        default:
          throw new IllegalArgumentException(
              "unknown option " + args[i] + "; usage: [--port N] [--tls] [--token T]");
      }
    }
    EmbeddedApiServer server = b.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      server.close();
      stopped.countDown();
    }, "kinformer-apiserver-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    PrintStream out = System.out;
    out.println("kinformer embedded API server listening on " + server.url());
    out.println("kubeconfig: " + server.kubeConfig());
    out.flush();
    stopped.await();
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return args[i];
  }
}
