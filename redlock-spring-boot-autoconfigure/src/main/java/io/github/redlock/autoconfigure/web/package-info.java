/**
 * Auto-configuration of the web answers for refused locks.
 */
@NullMarked
package io.github.redlock.autoconfigure.web;

import org.jspecify.annotations.NullMarked;
