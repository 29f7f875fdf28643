// An application module, compiled and run on the module path by ModulePathTest. It requires our
// modules only; everything else it uses (io.kinformer.cache, the fabric8 model) it must reach
// through their "requires transitive".
module io.kinformer.modulepath {
  requires io.kinformer.client;
  requires io.kinformer.testing;
}
