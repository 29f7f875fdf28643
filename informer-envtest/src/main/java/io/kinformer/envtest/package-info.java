/**
 * Real Kubernetes API server machinery for tests, in the manner of controller-runtime's envtest.
 *
 * <p>{@link io.kinformer.envtest.ApiServer} starts etcd and an API server binary as child
 * processes on loopback, with fresh certificates and credentials, waits for {@code /healthz},
 * writes a kubeconfig and hands out a {@link io.kinformer.client.KubeClient}. The binaries are
 * found by {@link io.kinformer.envtest.ApiServerBinaries#locate()}: the server that
 * {@code informer-testing/apiserver/build.sh} builds from {@code k8s.io/apiserver}, or
 * kube-apiserver and etcd from {@code KUBEBUILDER_ASSETS}. {@link
 * io.kinformer.envtest.ApiServerExtension} shares one server among the JUnit 5 tests of a run
 * and disables them, with the reason, when no binary is found.
 */
@NullMarked
package io.kinformer.envtest;

import org.jspecify.annotations.NullMarked;
