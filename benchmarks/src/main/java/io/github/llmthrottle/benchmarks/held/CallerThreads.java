package io.github.llmthrottle.benchmarks.held;

import java.lang.reflect.Method;
import java.util.Locale;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads the callers of a run are on: platform threads (daemons, so that a call that
 * never ends cannot keep the JVM alive), or virtual threads on Java 21 and later. The
 * benchmarks are compiled for Java 17, so virtual threads are reached by reflection
 * ({@code Thread.ofVirtual().name(..).factory()}).
 */
public enum CallerThreads {

    /** One platform thread per caller. */
    PLATFORM,

    /** One virtual thread per caller (Java 21 and later). */
    VIRTUAL;

    /**
     * The kind named by a command-line argument.
     * @param name {@code platform} or {@code virtual}
     * @return the kind
     */
    public static CallerThreads of(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }

    /**
     * Whether this JVM has virtual threads.
     * @return {@code true} on Java 21 and later
     */
    public static boolean virtualAvailable() {
        return Runtime.version().feature() >= 21;
    }

    /**
     * A factory of caller threads of this kind.
     * @param prefix the start of the threads' names
     * @return the factory
     * @throws IllegalStateException for virtual threads before Java 21
     */
    public ThreadFactory factory(String prefix) {
        if (this == PLATFORM) {
            AtomicLong next = new AtomicLong();
            return (runnable) -> {
                Thread thread = new Thread(runnable, prefix + next.getAndIncrement());
                thread.setDaemon(true);
                return thread;
            };
        }
        if (!virtualAvailable()) {
            throw new IllegalStateException("Virtual threads need Java 21 or later; this is " + Runtime.version());
        }
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            Method name = builderType.getMethod("name", String.class, long.class);
            builder = name.invoke(builder, prefix, 0L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("No virtual threads on " + Runtime.version(), ex);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

}
