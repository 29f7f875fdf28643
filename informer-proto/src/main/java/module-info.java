import org.jspecify.annotations.NullMarked;

/**
 * Kubernetes' protobuf encoding of the built-in types, read as the JSON the API server writes for
 * the same objects: the decoder of informer-client's protobuf transport and of the protobuf
 * request bodies the embedded API server of informer-testing accepts.
 *
 * <p>No API: its one package is internal and exported only to those two modules.
 */
@NullMarked
module io.kinformer.proto {
  requires tools.jackson.core;
  requires tools.jackson.databind;
  requires static transitive org.jspecify;

  exports io.kinformer.proto.internal to io.kinformer.client, io.kinformer.testing;
}
