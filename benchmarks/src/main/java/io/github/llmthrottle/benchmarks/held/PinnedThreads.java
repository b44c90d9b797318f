package io.github.llmthrottle.benchmarks.held;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Counts the times a virtual thread was pinned to its carrier while it blocked, with
 * JFR's {@code jdk.VirtualThreadPinned} event recorded in-process with no threshold
 * (JFR's default records only pins of 20 ms and more; both counts are given). From JDK 24
 * on a monitor no longer pins ({@code -Djdk.tracePinnedThreads} is gone with that); what
 * still pins is blocking under a native frame or a class initializer, and JFR reports it.
 * On a JDK without the event nothing is recorded and the counts are zero.
 */
final class PinnedThreads implements AutoCloseable {

    static final String EVENT = "jdk.VirtualThreadPinned";

    private final Recording recording = new Recording();

    private PinnedThreads() {
        this.recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
        this.recording.setToDisk(true);
        this.recording.start();
    }

    /**
     * Starts recording.
     * @return the recording; {@link #stop()} it to read the counts
     */
    static PinnedThreads record() {
        return new PinnedThreads();
    }

    /**
     * Stops recording and counts the events.
     * @return the counts
     * @throws IOException if the recording cannot be read
     */
    Counts stop() throws IOException {
        this.recording.stop();
        Path file = Files.createTempFile("pinned", ".jfr");
        try {
            this.recording.dump(file);
            List<RecordedEvent> events = RecordingFile.readAllEvents(file)
                .stream()
                .filter((event) -> event.getEventType().getName().equals(EVENT))
                .collect(Collectors.toList());
            long long20 = events.stream()
                .filter((event) -> event.getDuration().compareTo(Duration.ofMillis(20)) >= 0)
                .count();
            Map<String, Long> where = new LinkedHashMap<>();
            events.stream()
                .map(PinnedThreads::where)
                .collect(Collectors.groupingBy((frame) -> frame, Collectors.counting()))
                .entrySet()
                .stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(5)
                .forEach((entry) -> where.put(entry.getKey(), entry.getValue()));
            return new Counts(events.size(), long20, where);
        }
        finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * The top frame of the pinned stack (what blocked) and the first frame that is not
     * the JDK's (who called it).
     */
    private static String where(RecordedEvent event) {
        if (event.getStackTrace() == null || event.getStackTrace().getFrames().isEmpty()) {
            return "(no stack)";
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        String top = name(frames.get(0));
        for (RecordedFrame frame : frames) {
            String type = frame.getMethod().getType().getName();
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return top + " in " + name(frame);
            }
        }
        return top;
    }

    private static String name(RecordedFrame frame) {
        return frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
    }

    @Override
    public void close() {
        this.recording.close();
    }

    /**
     * What was recorded.
     *
     * @param events every pin
     * @param atLeast20ms the pins of 20 ms or more (what JFR records by default)
     * @param where the first non-JDK frame of the pinned stacks, most frequent first (at
     * most five)
     */
    record Counts(long events, long atLeast20ms, Map<String, Long> where) {

        static final Counts NONE = new Counts(0, 0, Map.of());

    }

}
