package io.github.llmthrottle.limit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;

import redis.embedded.RedisServer;

/**
 * The Redis server the Redis tests talk to: the one answering on 127.0.0.1:6379 when
 * there is one (as {@code .ci/run} starts it), otherwise an embedded Redis server started
 * on a free loopback port the first time a test asks, once per JVM, and stopped when the
 * JVM exits. Either way the tests need nothing but a JDK.
 */
public final class TestRedis {

    /** The host every test reaches Redis on. */
    public static final String HOST = "127.0.0.1";

    private static final int STANDARD_PORT = 6379;

    private static final byte[] PONG = "+PONG\r\n".getBytes(StandardCharsets.US_ASCII);

    private TestRedis() {
    }

    /**
     * The port of the Redis server, starting the embedded one on the first call when
     * nothing answers on 127.0.0.1:6379.
     * @return the port
     */
    public static int port() {
        return Server.PORT;
    }

    /**
     * The Redis URI of the server, as Lettuce's {@code RedisClient.create(String)} takes
     * it.
     * @return the URI
     */
    public static String uri() {
        return "redis://" + HOST + ":" + port();
    }

    /**
     * Deletes the keys a test wrote under its prefix.
     * @param prefix the prefix of the test's keys
     */
    public static void deleteKeys(String prefix) {
        RedisClient client = RedisClient.create(uri());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            List<String> keys = connection.sync().keys(prefix + ":*");
            if (!keys.isEmpty()) {
                connection.sync().del(keys.toArray(String[]::new));
            }
        }
        finally {
            client.shutdown();
        }
    }

    /**
     * Holds the port; the JVM initialises it once, on the first call to {@link #port()}.
     */
    private static final class Server {

        static final int PORT = answersPing(STANDARD_PORT) ? STANDARD_PORT : startEmbedded();

    }

    /**
     * Whether a Redis server that needs no password answers {@code PING} on the port.
     * @param port the port on 127.0.0.1
     * @return whether it answered {@code +PONG}
     */
    static boolean answersPing(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return Arrays.equals(in.readNBytes(PONG.length), PONG);
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static int startEmbedded() {
        IOException failure = null;
        // Another process may take the free port before Redis binds it; a few tries
        // settle that.
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                // Below the ephemeral range, for the same reason as TcpForwarder's ports.
                int port = TcpForwarder.freePort();
                RedisServer server = RedisServer.newRedisServer()
                    .bind(HOST)
                    .port(port)
                    .setting("save \"\"")
                    .setting("appendonly no")
                    .build();
                server.start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "embedded-redis-stop"));
                System.err.printf("No Redis answers on %s:%d; the Redis tests use an embedded Redis on port %d%n", HOST,
                        STANDARD_PORT, port);
                return port;
            }
            catch (IOException ex) {
                failure = ex;
            }
        }
        throw new IllegalStateException("No Redis answers on " + HOST + ":" + STANDARD_PORT
                + " and an embedded Redis server could not be started", failure);
    }

    private static void stop(RedisServer server) {
        try {
            if (server.isActive()) {
                server.stop();
            }
        }
        catch (IOException ex) {
            // the JVM is exiting; the server process goes with it
        }
    }

}
