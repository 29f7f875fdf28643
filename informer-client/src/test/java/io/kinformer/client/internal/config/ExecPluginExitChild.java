package io.kinformer.client.internal.config;

import io.kinformer.client.KubeClient;
import io.kinformer.client.KubeClientTest;
import io.kinformer.client.KubeConfig;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM that asks a hanging exec credential plugin for a token and exits without closing its
 * client once the test creates {@code exit-now} beside the kubeconfig: the plugin must not outlive
 * it ({@code ExecCredentialPluginTest.jvmExit_whilePluginHangs_killsIt}).
 *
 * <p>Thread safety: a main program.
 */
final class ExecPluginExitChild {

  private ExecPluginExitChild() {}

  public static void main(String[] args) throws Exception {
    Path config = Path.of(args[0]);
    KubeClient client = KubeClient.create(KubeConfig.load(config));
    Thread caller = new Thread(() -> {
      try {
        KubeClientTest.get(client, "/api").close();
      } catch (Exception expected) {
        // the plugin is killed at exit
      }
    }, "caller");
    caller.setDaemon(true);
    caller.start();
    Path exitNow = config.resolveSibling("exit-now");
    while (!Files.exists(exitNow)) {
      Thread.onSpinWait();
      Thread.sleep(10);
    }
    System.exit(0);
  }
}
