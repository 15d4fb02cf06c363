package io.github.redlock.embedded;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * One server's view of its cluster, read from its {@code CLUSTER NODES} and
 * {@code CLUSTER INFO}: who is in it, who is a master or a replica of whom, who owns
 * which slot, and which slots the server itself is migrating or importing.
 *
 * @param observer the server whose view this is
 * @param ok whether it reports {@code cluster_state:ok}
 * @param members every node it knows, itself included
 * @param migrating the slots it is migrating, to the id of their target
 * @param importing the slots it is importing, from the id of their source
 */
record ClusterView(RedisNode observer, boolean ok, List<Member> members, Map<Integer, String> migrating,
		Map<Integer, String> importing) {

	private static final Set<String> TROUBLE = Set.of("fail", "fail?", "handshake", "noaddr");

	/**
	 * Reads the view of a server.
	 */
	static ClusterView read(NodeLinks links, RedisNode observer) {
		String info = (String) links.call(observer, "CLUSTER", "INFO");
		String nodes = (String) links.call(observer, "CLUSTER", "NODES");
		return parse(observer, info, nodes);
	}

	static ClusterView parse(RedisNode observer, String info, String nodes) {
		List<Member> members = new ArrayList<>();
		Map<Integer, String> migrating = new HashMap<>();
		Map<Integer, String> importing = new HashMap<>();
		for (String line : nodes.split("\n")) {
			String[] fields = line.trim().split(" ");
			if (fields.length < 8) {
				continue;
			}
			Set<String> flags = Set.of(fields[2].split(","));
			BitSet slots = new BitSet(ClusterSlots.COUNT);
			for (int i = 8; i < fields.length; i++) {
				String slot = fields[i];
				if (slot.startsWith("[")) {
					// "[slot->-target]" or "[slot-<-source]", on the server's own line
					// only
					String inner = slot.substring(1, slot.length() - 1);
					int arrow = inner.indexOf("->-");
					if (arrow > 0) {
						migrating.put(Integer.parseInt(inner.substring(0, arrow)), inner.substring(arrow + 3));
					}
					else {
						arrow = inner.indexOf("-<-");
						importing.put(Integer.parseInt(inner.substring(0, arrow)), inner.substring(arrow + 3));
					}
				}
				else {
					int dash = slot.indexOf('-');
					int first = Integer.parseInt((dash < 0) ? slot : slot.substring(0, dash));
					int last = (dash < 0) ? first : Integer.parseInt(slot.substring(dash + 1));
					slots.set(first, last + 1);
				}
			}
			// "127.0.0.1:30001@40001", with ",hostname" after it on Redis 7+
			String address = fields[1];
			int at = address.indexOf('@');
			String hostPort = (at >= 0) ? address.substring(0, at) : address.split(",")[0];
			int colon = hostPort.lastIndexOf(':');
			int port = (colon >= 0 && colon < hostPort.length() - 1) ? Integer.parseInt(hostPort.substring(colon + 1))
					: 0;
			members.add(new Member(fields[0], port, flags, fields[3], "connected".equals(fields[7]), slots));
		}
		return new ClusterView(observer, info.contains("cluster_state:ok"), List.copyOf(members), Map.copyOf(migrating),
				Map.copyOf(importing));
	}

	/**
	 * Returns the member with the given id.
	 */
	Optional<Member> member(String id) {
		return this.members.stream().filter((member) -> member.id().equals(id)).findFirst();
	}

	/**
	 * Returns the id of the master that owns a slot, or {@code null} if none does.
	 */
	@Nullable String owner(int slot) {
		return this.members.stream()
			.filter((member) -> member.isMaster() && member.slots().get(slot))
			.map(Member::id)
			.findFirst()
			.orElse(null);
	}

	/**
	 * Returns the masters, those with slots by their first slot, then those without.
	 */
	List<Member> masters() {
		return this.members.stream().filter(Member::isMaster).sorted(Comparator.comparingInt((Member member) -> {
			int first = member.slots().nextSetBit(0);
			return (first < 0) ? ClusterSlots.COUNT : first;
		}).thenComparing(Member::id)).toList();
	}

	/**
	 * Returns the replicas of a master.
	 */
	List<Member> replicasOf(String masterId) {
		return this.members.stream()
			.filter((member) -> !member.isMaster() && member.masterId().equals(masterId))
			.toList();
	}

	/**
	 * Returns who owns which slot, and who of the given nodes is master or replica of
	 * whom, in a form that is equal for two views that agree on it. Nodes that are down
	 * are left out: how each server remembers them differs while they cannot say.
	 */
	String topology(Set<String> ids) {
		String roles = this.members.stream()
			.filter((member) -> ids.contains(member.id()))
			.sorted(Comparator.comparing(Member::id))
			.map((member) -> member.id() + (member.isMaster() ? " master" : " replica-of " + member.masterId()))
			.collect(Collectors.joining("\n"));
		String slots = this.members.stream()
			.filter(Member::isMaster)
			.filter((member) -> !member.slots().isEmpty())
			.sorted(Comparator.comparing(Member::id))
			.map((member) -> member.id() + " serves " + ranges(member.slots()))
			.collect(Collectors.joining("\n"));
		return roles + "\n" + slots;
	}

	/**
	 * Returns the slots of a bit set as ranges.
	 */
	static List<SlotRange> ranges(BitSet slots) {
		List<SlotRange> ranges = new ArrayList<>();
		for (int first = slots.nextSetBit(0); first >= 0; first = slots.nextSetBit(first)) {
			int end = slots.nextClearBit(first);
			ranges.add(new SlotRange(first, end - 1));
			first = end;
		}
		return ranges;
	}

	/**
	 * One node as a server sees it.
	 *
	 * @param id its node id
	 * @param port its client port
	 * @param flags its flags, such as {@code myself}, {@code master}, {@code slave} or
	 * {@code fail?}
	 * @param masterId the id of its master, or {@code -} for a master
	 * @param connected whether the observer's link to it is up
	 * @param slots the slots it serves
	 */
	record Member(String id, int port, Set<String> flags, String masterId, boolean connected, BitSet slots) {

		boolean isMaster() {
			return this.flags.contains("master");
		}

		/**
		 * Returns whether the observer sees it as healthy: reachable and not suspected.
		 */
		boolean isHealthy() {
			return this.connected && this.flags.stream().noneMatch(TROUBLE::contains);
		}

	}

}
