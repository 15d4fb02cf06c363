/**
 * The starter holds no code: it brings {@code redlock-spring-boot-autoconfigure} and
 * {@code redlock-core}, whose {@code io.github.redlock.LockRegistry},
 * {@code io.github.redlock.annotation.DistributedLock} and {@code redlock.*} properties
 * are what an application uses. This package exists so that the starter, like every
 * published module, has a javadoc jar.
 */
package io.github.redlock.starter;
