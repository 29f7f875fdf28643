/**
 * Runnable kinformer programs: the demo, a controller that replicates ConfigMaps across
 * namespaces, and a factory with several informers. Each runs against an embedded API server
 * unless given a kubeconfig; see the project README for the commands.
 */
@NullMarked
package io.kinformer.examples;

import org.jspecify.annotations.NullMarked;
