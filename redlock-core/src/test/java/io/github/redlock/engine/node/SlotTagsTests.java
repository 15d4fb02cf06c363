package io.github.redlock.engine.node;

import java.util.HashSet;
import java.util.Set;

import io.github.redlock.embedded.ClusterSlots;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each slot's tag hashes to it, as the fixture computes slots (independently of the
 * Lettuce hash the table is built with), is short and holds no brace.
 */
class SlotTagsTests {

	@Test
	void everySlotHasADistinctShortTagThatHashesToIt() {
		Set<String> seen = new HashSet<>();
		for (int slot = 0; slot < ClusterSlots.COUNT; slot++) {
			String tag = SlotTags.tag(slot);
			assertThat(ClusterSlots.slot("redlock:node:{" + tag + "}")).as("slot %d", slot).isEqualTo(slot);
			assertThat(tag).hasSizeLessThanOrEqualTo(4).doesNotContain("{", "}");
			assertThat(seen.add(tag)).isTrue();
		}
	}

}
