/**
 * Informers for a real cluster: kubeconfig and in-cluster configuration, authentication and TLS,
 * an OkHttp transport shared by all informers of a {@code KubeClient}, streaming Jackson codecs,
 * list/watch over HTTP for any resource, a small REST client for controllers' writes, and the
 * {@code SharedInformerFactory}.
 */
@NullMarked
package io.kinformer.client;

import org.jspecify.annotations.NullMarked;
