package io.github.redlock.virtualthreads;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * Finds blocking calls made while a monitor is held, in compiled classes: in a
 * {@code synchronized} method or block, a call that blocks (sleep, wait, park, a future's
 * {@code get}, a latch, a lock, Lettuce's synchronous API, a blocking connect), directly
 * or through the project's own methods (following calls to project classes, including
 * every project implementation of a project interface, up to a depth). JDK 21 pins a
 * virtual thread's carrier for the whole of such a call. Reads bytecode with Spring's
 * repackaged ASM, so it needs no JDK 21 to run.
 */
final class BlockingInSynchronizedChecker {

	private static final String PROJECT = "io/github/redlock/";

	private static final int MAX_DEPTH = 8;

	/** Owner prefix, then method names ("*" for any), of calls that block. */
	private static final Map<String, Set<String>> BLOCKING = Map.ofEntries(
			Map.entry("java/lang/Thread", Set.of("sleep", "join")), Map.entry("java/lang/Object", Set.of("wait")),
			Map.entry("java/util/concurrent/locks/LockSupport", Set.of("*")),
			Map.entry("java/util/concurrent/Future", Set.of("get")),
			Map.entry("java/util/concurrent/CompletableFuture", Set.of("get", "join")),
			Map.entry("java/util/concurrent/FutureTask", Set.of("get")),
			Map.entry("java/util/concurrent/CountDownLatch", Set.of("await")),
			Map.entry("java/util/concurrent/CyclicBarrier", Set.of("await")),
			Map.entry("java/util/concurrent/Semaphore", Set.of("acquire", "acquireUninterruptibly")),
			Map.entry("java/util/concurrent/BlockingQueue", Set.of("take", "put")),
			Map.entry("java/util/concurrent/LinkedBlockingQueue", Set.of("take", "put")),
			Map.entry("java/util/concurrent/ArrayBlockingQueue", Set.of("take", "put")),
			Map.entry("java/util/concurrent/ExecutorService",
					Set.of("awaitTermination", "invokeAll", "invokeAny", "close")),
			Map.entry("java/util/concurrent/locks/Lock", Set.of("lock", "lockInterruptibly")),
			Map.entry("java/util/concurrent/locks/ReentrantLock", Set.of("lock", "lockInterruptibly")),
			Map.entry("java/util/concurrent/locks/Condition", Set.of("*")),
			Map.entry("java/net/Socket", Set.of("connect")), Map.entry("java/io/InputStream", Set.of("read")),
			Map.entry("io/lettuce/core/api/sync/", Set.of("*")),
			Map.entry("io/lettuce/core/RedisFuture", Set.of("get", "await")),
			Map.entry("io/lettuce/core/LettuceFutures", Set.of("*")),
			Map.entry("io/lettuce/core/RedisClient", Set.of("connect", "connectPubSub", "shutdown")),
			Map.entry("io/lettuce/core/AbstractRedisClient", Set.of("shutdown")),
			Map.entry("io/lettuce/core/resource/ClientResources", Set.of("shutdown")),
			Map.entry("io/netty/util/concurrent/Future",
					Set.of("sync", "syncUninterruptibly", "await", "awaitUninterruptibly", "get")));

	private final Map<String, MethodInfo> methods = new HashMap<>();

	private final Map<String, Set<String>> supertypes = new HashMap<>();

	/**
	 * Reads every class under the given class-file roots (directories or jars of the
	 * project).
	 */
	BlockingInSynchronizedChecker(List<Path> roots) throws IOException {
		for (Path root : roots) {
			if (Files.isDirectory(root)) {
				readAll(root);
			}
			else {
				try (FileSystem jar = FileSystems.newFileSystem(root)) {
					readAll(jar.getPath("/"));
				}
			}
		}
	}

	private void readAll(Path root) throws IOException {
		try (Stream<Path> files = Files.walk(root)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".class")).toList()) {
				try (InputStream in = Files.newInputStream(file)) {
					read(new ClassReader(in));
				}
			}
		}
	}

	int classesRead() {
		return this.supertypes.size();
	}

	private void read(ClassReader reader) {
		reader.accept(new ClassVisitor(Opcodes.ASM9) {

			private String owner;

			@Override
			public void visit(int version, int access, String name, String signature, String superName,
					String[] interfaces) {
				this.owner = name;
				Set<String> types = new LinkedHashSet<>();
				if (superName != null) {
					types.add(superName);
				}
				if (interfaces != null) {
					types.addAll(List.of(interfaces));
				}
				BlockingInSynchronizedChecker.this.supertypes.put(name, types);
			}

			@Override
			public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
					String[] exceptions) {
				MethodInfo method = new MethodInfo(this.owner, name, descriptor,
						(access & Opcodes.ACC_SYNCHRONIZED) != 0);
				BlockingInSynchronizedChecker.this.methods.put(method.id(), method);
				return new MethodVisitor(Opcodes.ASM9) {

					private int monitors;

					@Override
					public void visitInsn(int opcode) {
						if (opcode == Opcodes.MONITORENTER) {
							this.monitors++;
						}
						else if (opcode == Opcodes.MONITOREXIT) {
							this.monitors = Math.max(0, this.monitors - 1);
						}
					}

					@Override
					public void visitMethodInsn(int opcode, String callOwner, String callName, String callDescriptor,
							boolean isInterface) {
						method.calls.add(new Call(callOwner, callName, callDescriptor,
								method.synchronizedMethod || this.monitors > 0));
					}

				};
			}

		}, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
	}

	/**
	 * Returns, for every call made under a monitor that blocks (itself, or through the
	 * project's methods), the path from the method holding the monitor to the blocking
	 * call.
	 */
	List<String> findings() {
		List<String> findings = new ArrayList<>();
		for (MethodInfo method : this.methods.values()) {
			for (Call call : method.calls) {
				if (!call.underMonitor) {
					continue;
				}
				String path = blockingPath(call, 0, new HashSet<>());
				if (path != null) {
					findings.add(readable(method.id())
							+ (method.synchronizedMethod ? " (synchronized method)" : " (synchronized block)") + " -> "
							+ path);
				}
			}
		}
		findings.sort(null);
		return findings;
	}

	private String blockingPath(Call call, int depth, Set<String> seen) {
		if (blocks(call)) {
			return readable(call.owner + "." + call.name);
		}
		if (!call.owner.startsWith(PROJECT) || depth >= MAX_DEPTH) {
			return null;
		}
		for (MethodInfo target : implementations(call)) {
			if (!seen.add(target.id())) {
				continue;
			}
			for (Call inner : target.calls) {
				String path = blockingPath(inner, depth + 1, seen);
				if (path != null) {
					return readable(target.id()) + " -> " + path;
				}
			}
		}
		return null;
	}

	private List<MethodInfo> implementations(Call call) {
		List<MethodInfo> found = new ArrayList<>();
		for (MethodInfo method : this.methods.values()) {
			if (method.name.equals(call.name) && method.descriptor.equals(call.descriptor)
					&& isSubtype(method.owner, call.owner)) {
				found.add(method);
			}
		}
		return found;
	}

	private boolean isSubtype(String type, String of) {
		Deque<String> pending = new ArrayDeque<>(List.of(type));
		Set<String> seen = new HashSet<>();
		while (!pending.isEmpty()) {
			String next = pending.pop();
			if (next.equals(of)) {
				return true;
			}
			if (seen.add(next)) {
				pending.addAll(this.supertypes.getOrDefault(next, Set.of()));
			}
		}
		return false;
	}

	private static boolean blocks(Call call) {
		for (Map.Entry<String, Set<String>> entry : BLOCKING.entrySet()) {
			boolean owner = entry.getKey().endsWith("/") ? call.owner.startsWith(entry.getKey())
					: call.owner.equals(entry.getKey());
			if (owner && (entry.getValue().contains("*") || entry.getValue().contains(call.name))) {
				return true;
			}
		}
		return false;
	}

	private static String readable(String id) {
		int paren = id.indexOf('(');
		return ((paren >= 0) ? id.substring(0, paren) : id).replace('/', '.');
	}

	private record Call(String owner, String name, String descriptor, boolean underMonitor) {
	}

	private static final class MethodInfo {

		final String owner;

		final String name;

		final String descriptor;

		final boolean synchronizedMethod;

		final List<Call> calls = new ArrayList<>();

		MethodInfo(String owner, String name, String descriptor, boolean synchronizedMethod) {
			this.owner = owner;
			this.name = name;
			this.descriptor = descriptor;
			this.synchronizedMethod = synchronizedMethod;
		}

		String id() {
			return this.owner + "." + this.name + this.descriptor;
		}

	}

}
