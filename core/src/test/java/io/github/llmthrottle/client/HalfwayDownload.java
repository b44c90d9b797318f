package io.github.llmthrottle.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback server whose every response is a download sent in two halves: the second
 * only once the client says it has read the first ({@link #firstHalfRead()}), or after
 * {@link #PATIENCE} seconds. A client that buffers the body before handing it over cannot
 * read the first half before the server gives up waiting, so {@link #wasReadHalfway()}
 * tells a streamed download from a buffered one. Plain sockets and HTTP/1.1 with one
 * request per connection, so that no server library's own buffering is in the way.
 */
public final class HalfwayDownload implements AutoCloseable {

    /** How long the server waits for the client to read the first half, in seconds. */
    public static final long PATIENCE = 10;

    /** The size of each half. */
    public static final int HALF = 64 * 1024;

    private final ServerSocket socket;

    private final AtomicInteger requests = new AtomicInteger();

    /** The current download's signal that its first half was read. */
    private volatile CountDownLatch firstHalfRead = new CountDownLatch(1);

    private volatile boolean readHalfway = true;

    private HalfwayDownload(ServerSocket socket) {
        this.socket = socket;
    }

    /**
     * Starts a server on a free loopback port.
     * @return the server
     * @throws IOException when it cannot start
     */
    public static HalfwayDownload start() throws IOException {
        HalfwayDownload download = new HalfwayDownload(new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1")));
        Thread thread = new Thread(download::serve, "halfway-download");
        thread.setDaemon(true);
        thread.start();
        return download;
    }

    private void serve() {
        while (!this.socket.isClosed()) {
            try (Socket connection = this.socket.accept()) {
                BufferedReader request = new BufferedReader(
                        new InputStreamReader(connection.getInputStream(), StandardCharsets.ISO_8859_1));
                for (String line = request.readLine(); line != null && !line.isEmpty(); line = request.readLine()) {
                    // the request's headers: a GET has no body
                }
                this.requests.incrementAndGet();
                OutputStream out = connection.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: " + 2 * HALF
                        + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
                CountDownLatch read = this.firstHalfRead;
                out.write(new byte[HALF]);
                out.flush();
                boolean halfway = read.await(PATIENCE, TimeUnit.SECONDS);
                this.readHalfway = this.readHalfway && halfway;
                this.firstHalfRead = new CountDownLatch(1);
                out.write(new byte[HALF]);
                out.flush();
            }
            catch (IOException ex) {
                // closed, or the client went away
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * The base URL of the server.
     * @return {@code http://127.0.0.1:PORT}
     */
    public String baseUrl() {
        return "http://127.0.0.1:" + this.socket.getLocalPort();
    }

    /** The client read the first half: the server sends the second. */
    public void firstHalfRead() {
        this.firstHalfRead.countDown();
    }

    /**
     * Whether the client read the first half of every download before the server sent the
     * second.
     * @return {@code true} for a streamed download
     */
    public boolean wasReadHalfway() {
        return this.readHalfway;
    }

    /**
     * How many requests the server received.
     * @return the count
     */
    public int requests() {
        return this.requests.get();
    }

    @Override
    public void close() throws IOException {
        this.firstHalfRead.countDown();
        this.socket.close();
    }

}
