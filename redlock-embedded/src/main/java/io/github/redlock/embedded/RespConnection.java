package io.github.redlock.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A minimal blocking RESP2 client, enough to probe, control and inspect a test node
 * without depending on a Redis client library. Over TLS it does not verify the host name:
 * it always connects to {@code 127.0.0.1}.
 */
final class RespConnection implements Closeable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	RespConnection(int port, int timeoutMillis) throws IOException {
		this(port, timeoutMillis, null);
	}

	/**
	 * Connects to a port on {@code 127.0.0.1}, over TLS if a context is given (the
	 * handshake is over when the constructor returns).
	 */
	RespConnection(int port, int timeoutMillis, @Nullable SSLContext tls) throws IOException {
		Socket plain = new Socket();
		Socket socket = plain;
		try {
			plain.connect(new InetSocketAddress("127.0.0.1", port), timeoutMillis);
			plain.setSoTimeout(timeoutMillis);
			plain.setTcpNoDelay(true);
			if (tls != null) {
				SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
				socket = secure;
				secure.setSoTimeout(timeoutMillis);
				secure.startHandshake();
			}
			this.socket = socket;
			this.in = new BufferedInputStream(socket.getInputStream());
			this.out = socket.getOutputStream();
		}
		catch (IOException ex) {
			// closing the TCP socket is enough: a TLS socket over it only wraps it
			plain.close();
			throw ex;
		}
	}

	@Nullable Object call(String... args) throws IOException {
		send(args);
		return read();
	}

	/**
	 * Sends a command without waiting for its reply; {@link #read()} reads it.
	 */
	void send(String... args) throws IOException {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		write(request, "*" + args.length + "\r\n");
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			write(request, "$" + bytes.length + "\r\n");
			request.write(bytes);
			write(request, "\r\n");
		}
		this.out.write(request.toByteArray());
		this.out.flush();
	}

	private static void write(ByteArrayOutputStream out, String text) {
		out.writeBytes(text.getBytes(StandardCharsets.US_ASCII));
	}

	@Nullable Object read() throws IOException {
		int type = this.in.read();
		if (type == -1) {
			throw new IOException("Connection closed by the server");
		}
		String line = readLine();
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new RespErrorException(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = this.in.readNBytes(length);
				readLine();
				return new String(data, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					items.add(read());
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type '" + (char) type + "'");
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b;
		while ((b = this.in.read()) != '\r') {
			if (b == -1) {
				throw new IOException("Connection closed by the server");
			}
			line.write(b);
		}
		this.in.read();
		return line.toString(StandardCharsets.UTF_8);
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

	/**
	 * An error reply from the server.
	 */
	static final class RespErrorException extends IOException {

		RespErrorException(String message) {
			super(message);
		}

	}

}
