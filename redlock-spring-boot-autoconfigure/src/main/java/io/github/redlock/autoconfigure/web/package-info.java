/**
 * Auto-configuration of the web answers for refused locks.
 */
package io.github.redlock.autoconfigure.web;
