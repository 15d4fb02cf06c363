/**
 * Docker Compose service connections for the lock quorum: a node for every service
 * labelled {@code org.springframework.boot.service-connection: redlock}.
 */
@NullMarked
package io.github.redlock.docker.compose;

import org.jspecify.annotations.NullMarked;
