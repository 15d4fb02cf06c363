package io.github.redlock.engine.kinds;

/**
 * One attempt of an {@link AcquisitionLoop}, fixed when it starts: everything sent for it
 * and the lease it makes name its value and slot.
 *
 * @param number its number, from 1
 * @param value its lock value
 * @param slot the permit slot it asks for ({@link AcquisitionLoop#nextSlot}; 0 for the
 * kinds without slots)
 * @author redlock contributors
 */
record Attempt(int number, String value, int slot) {

}
