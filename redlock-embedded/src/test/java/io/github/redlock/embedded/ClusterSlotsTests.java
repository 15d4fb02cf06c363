package io.github.redlock.embedded;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClusterSlotsTests {

	@Test
	void crc16MatchesTheTestVectorOfTheClusterSpecification() {
		byte[] bytes = "123456789".getBytes(StandardCharsets.US_ASCII);
		assertThat(ClusterSlots.crc16(bytes, 0, bytes.length)).isEqualTo(0x31C3);
		assertThat(ClusterSlots.slot("123456789")).isEqualTo(0x31C3 % ClusterSlots.COUNT);
	}

	@Test
	void slotsMatchTheExamplesOfTheRedisDocumentation() {
		assertThat(ClusterSlots.slot("somekey")).isEqualTo(11058);
		assertThat(ClusterSlots.slot("foo{hash_tag}")).isEqualTo(2515);
	}

	@Test
	void keysWithTheSameHashTagShareTheSlotOfTheTag() {
		int user = ClusterSlots.slot("user1000");
		assertThat(ClusterSlots.slot("{user1000}.following")).isEqualTo(user);
		assertThat(ClusterSlots.slot("{user1000}.followers")).isEqualTo(user);
		assertThat(ClusterSlots.slot("foo{bar}{zap}")).isEqualTo(ClusterSlots.slot("bar"));
		assertThat(ClusterSlots.slot("foo{{bar}}zap")).isEqualTo(ClusterSlots.slot("{bar"));
	}

	@Test
	void anEmptyOrUnclosedHashTagHashesTheWholeKey() {
		assertThat(ClusterSlots.slot("foo{}{bar}")).isEqualTo(crcSlot("foo{}{bar}"));
		assertThat(ClusterSlots.slot("foo{bar")).isEqualTo(crcSlot("foo{bar"));
		assertThat(ClusterSlots.slot("")).isZero();
	}

	private static int crcSlot(String whole) {
		byte[] bytes = whole.getBytes(StandardCharsets.UTF_8);
		return ClusterSlots.crc16(bytes, 0, bytes.length) % ClusterSlots.COUNT;
	}

}
