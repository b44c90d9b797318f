package io.github.llmthrottle.limit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Forwards a loopback port to another one, to make a server go away and come back, or
 * answer late ({@link #hold()}), in tests.
 */
public final class TcpForwarder implements AutoCloseable {

    private final int port;

    private final int target;

    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    private volatile ServerSocket server;

    private final Object holdLock = new Object();

    private boolean held;

    public TcpForwarder(int port, int target) {
        this.port = port;
        this.target = target;
    }

    /** The port it listens on. */
    public int port() {
        return this.port;
    }

    /**
     * A free port below the ephemeral range (32768 and up on Linux). A port from the
     * ephemeral range can be handed to an outgoing connection once the forwarder stops
     * listening, and a client reconnecting to it can even connect to itself (TCP
     * simultaneous open), either of which would keep the forwarder from listening on it
     * again.
     * @return the port
     * @throws IOException if no port is free
     */
    public static int freePort() throws IOException {
        int start = 20_000 + java.util.concurrent.ThreadLocalRandom.current().nextInt(10_000);
        for (int i = 0; i < 10_000; i++) {
            int port = 20_000 + (start - 20_000 + i) % 10_000;
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            }
            catch (IOException ex) {
                // taken; try the next one
            }
        }
        throw new IOException("No free loopback port between 20000 and 29999");
    }

    public void start() throws IOException {
        ServerSocket socket = bind();
        this.server = socket;
        Thread acceptor = new Thread(() -> accept(socket), "forwarder-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /**
     * Listens on the port again; the sockets of the connections it served may hold it for
     * a moment after {@link #stop()}, longer on a busy machine, so binding is retried for
     * a few seconds.
     */
    private ServerSocket bind() throws IOException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (true) {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            try {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port));
                return socket;
            }
            catch (java.net.BindException ex) {
                socket.close();
                if (System.nanoTime() > deadline) {
                    throw ex;
                }
                try {
                    Thread.sleep(50);
                }
                catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw ex;
                }
            }
        }
    }

    private void accept(ServerSocket socket) {
        try {
            while (!socket.isClosed()) {
                Socket inbound = socket.accept();
                Socket outbound = new Socket(InetAddress.getLoopbackAddress(), this.target);
                this.sockets.add(inbound);
                this.sockets.add(outbound);
                pump(inbound, outbound);
                pump(outbound, inbound);
            }
        }
        catch (IOException ex) {
            // closed
        }
    }

    private void pump(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) != -1) {
                    awaitResumed();
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
            catch (IOException ex) {
                // closed
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "forwarder-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Holds every byte in either direction until {@link #resume()}: the server seems to
     * take that long to answer.
     */
    public void hold() {
        synchronized (this.holdLock) {
            this.held = true;
        }
    }

    /** Forwards what was held, and everything after it, at once again. */
    public void resume() {
        synchronized (this.holdLock) {
            this.held = false;
            this.holdLock.notifyAll();
        }
    }

    private void awaitResumed() throws IOException {
        synchronized (this.holdLock) {
            while (this.held) {
                try {
                    this.holdLock.wait();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IOException(ex);
                }
            }
        }
    }

    /** Stops listening and drops every forwarded connection. */
    public void stop() {
        resume();
        ServerSocket socket = this.server;
        if (socket != null) {
            closeQuietly(socket);
        }
        this.sockets.forEach(TcpForwarder::closeQuietly);
        this.sockets.clear();
    }

    @Override
    public void close() {
        stop();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        }
        catch (Exception ex) {
            // ignore
        }
    }

}
