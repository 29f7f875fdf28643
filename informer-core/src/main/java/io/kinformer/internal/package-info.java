/**
 * Support code shared by kinformer's own modules and not part of its API: exported only to
 * kinformer modules (see {@code module-info.java}), and free to change in any release.
 */
@NullMarked
package io.kinformer.internal;

import org.jspecify.annotations.NullMarked;
