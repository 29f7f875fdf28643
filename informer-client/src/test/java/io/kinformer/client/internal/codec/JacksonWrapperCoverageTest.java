package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonParser;
import tools.jackson.core.sym.ByteQuadsCanonicalizer;

/**
 * Guards the classes that stand in for a Jackson class against a Jackson upgrade: every
 * overridable method of the Jackson supertype is either overridden by the stand-in or on a list,
 * reviewed here, of methods that are safe to inherit. A method Jackson adds fails the test by
 * name until someone decides which of the two it is.
 *
 * <p>{@link CacheJsonFactory}'s name-table views keep a dummy table of their own and forward to
 * a real one, so an inherited method would silently read or write the dummy. The factory itself
 * is a real Jackson factory; only the methods that make parsers matter there, since one that did
 * not go through {@code _createParser(InputStream|byte[])} would bypass the bounded table.
 */
class JacksonWrapperCoverageTest {

  private static final String ROOT = CacheJsonFactory.class.getName() + "$BoundedRoot";
  private static final String VIEW = CacheJsonFactory.class.getName() + "$Bounded";

  /** Diagnostics and internals a parser never calls on its table: they may see the dummy. */
  private static final Set<String> VIEW_MAY_INHERIT =
      Set.of(
          "bucketCount()",
          "primaryCount()",
          "secondaryCount()",
          "tertiaryCount()",
          "spilloverCount()",
          "totalCount()",
          // a parser's table is never asked for children; only the root is
          "makeChild(int)",
          "makeChildOrPlaceholder(int)",
          // called only by the dummy's own addName, which is overridden
          "_reportTooManyCollisions()");

  /** The root is only asked for children (and its size, by the tests). */
  private static final Set<String> ROOT_MAY_INHERIT =
      Set.of(
          "release()",
          "bucketCount()",
          "maybeDirty()",
          "hashSeed()",
          "isCanonicalizing()",
          "willInternStrings()",
          "primaryCount()",
          "secondaryCount()",
          "tertiaryCount()",
          "spilloverCount()",
          "totalCount()",
          "toString()",
          "findName(int)",
          "findName(int,int)",
          "findName(int,int,int)",
          "findName(int[],int)",
          "addName(String,int)",
          "addName(String,int,int)",
          "addName(String,int,int,int)",
          "addName(String,int[],int)",
          "calcHash(int)",
          "calcHash(int,int)",
          "calcHash(int,int,int)",
          "calcHash(int[],int)",
          "_reportTooManyCollisions()");

  /**
   * The public {@code createParser} overloads end in {@code _createParser}; char sources use the
   * char table, not the bounded byte table (the informers only parse bytes); the non-blocking
   * parsers are not used by the mapper's readers.
   */
  private static final Set<String> FACTORY_MAY_INHERIT =
      Set.of(
          "createParser(File)",
          "createParser(InputStream)",
          "createParser(Reader)",
          "createParser(byte[])",
          "createParser(byte[],int,int)",
          "createParser(String)",
          "createParser(char[])",
          "createParser(char[],int,int)",
          "createParser(ObjectReadContext,File)",
          "createParser(ObjectReadContext,Path)",
          "createParser(ObjectReadContext,InputStream)",
          "createParser(ObjectReadContext,Reader)",
          "createParser(ObjectReadContext,byte[])",
          "createParser(ObjectReadContext,byte[],int,int)",
          "createParser(ObjectReadContext,String)",
          "createParser(ObjectReadContext,char[])",
          "createParser(ObjectReadContext,char[],int,int)",
          "createParser(ObjectReadContext,DataInput)",
          "_createParser(ObjectReadContext,IOContext,Reader)",
          "_createParser(ObjectReadContext,IOContext,char[],int,int,boolean)",
          "_createParser(ObjectReadContext,IOContext,DataInput)",
          "createNonBlockingByteArrayParser(ObjectReadContext)",
          "createNonBlockingByteBufferParser(ObjectReadContext)");

  @Test
  void nameTableView_handlesEveryMethodOfJacksonsTable() throws Exception {
    assertThat(unhandled(Class.forName(VIEW), m -> true))
        .as("methods of %s neither overridden by %s nor reviewed as safe to inherit",
            ByteQuadsCanonicalizer.class.getName(), VIEW)
        .isSubsetOf(VIEW_MAY_INHERIT);
  }

  @Test
  void nameTableRoot_handlesEveryMethodOfJacksonsTable() throws Exception {
    assertThat(unhandled(Class.forName(ROOT), m -> true))
        .as("methods of %s neither overridden by %s nor reviewed as safe to inherit",
            ByteQuadsCanonicalizer.class.getName(), ROOT)
        .isSubsetOf(ROOT_MAY_INHERIT);
  }

  @Test
  void factory_handlesEveryWayJacksonMakesAParser() {
    assertThat(
            unhandled(
                CacheJsonFactory.class,
                m -> JsonParser.class.isAssignableFrom(m.getReturnType())))
        .as("parser-making methods neither overridden by %s nor reviewed as safe to inherit",
            CacheJsonFactory.class.getName())
        .isSubsetOf(FACTORY_MAY_INHERIT);
  }

  @Test
  void reviewedLists_nameOnlyMethodsThatExist() throws Exception {
    // A stale entry would let a later method of the same name through unreviewed.
    assertThat(VIEW_MAY_INHERIT)
        .isSubsetOf(overridable(ByteQuadsCanonicalizer.class, m -> true));
    assertThat(ROOT_MAY_INHERIT)
        .isSubsetOf(overridable(ByteQuadsCanonicalizer.class, m -> true));
    assertThat(FACTORY_MAY_INHERIT)
        .isSubsetOf(
            overridable(
                CacheJsonFactory.class.getSuperclass(),
                m -> JsonParser.class.isAssignableFrom(m.getReturnType())));
  }

  /** The overridable methods of {@code wrapper}'s supertypes that {@code wrapper} does not declare. */
  private static Set<String> unhandled(Class<?> wrapper, Predicate<Method> which) {
    Set<String> declared =
        Arrays.stream(wrapper.getDeclaredMethods())
            .map(JacksonWrapperCoverageTest::signature)
            .collect(Collectors.toSet());
    Set<String> missing = overridable(wrapper.getSuperclass(), which);
    missing.removeAll(declared);
    return missing;
  }

  private static Set<String> overridable(Class<?> from, Predicate<Method> which) {
    Set<String> methods = new TreeSet<>();
    for (Class<?> c = from; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) {
        int mod = m.getModifiers();
        if ((Modifier.isPublic(mod) || Modifier.isProtected(mod))
            && !Modifier.isStatic(mod)
            && !Modifier.isFinal(mod)
            && !m.isSynthetic()
            && !m.isBridge()
            && which.test(m)) {
          methods.add(signature(m));
        }
      }
    }
    return methods;
  }

  private static String signature(Method m) {
    return m.getName()
        + Arrays.stream(m.getParameterTypes())
            .map(Class::getSimpleName)
            .collect(Collectors.joining(",", "(", ")"));
  }
}
