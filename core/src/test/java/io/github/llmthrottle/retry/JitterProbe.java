package io.github.llmthrottle.retry;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * Prints the jitter of a few back-offs drawn on new threads, in a JVM of its own: run
 * twice, it shows whether two instances of an application would wait the same.
 */
final class JitterProbe {

    private JitterProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        RandomGenerator random = args[0].equals("captured") ? ThreadLocalRandom.current() : BackOff.THREAD_LOCAL_RANDOM;
        BackOff backOff = new BackOff(RetrySettings.DEFAULTS, random);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread thread = new Thread(() -> waits.add(backOff.backOff(5, null).toNanos()));
            thread.start();
            thread.join();
        }
        System.out.println(waits);
    }

    /**
     * Runs the probe in a new JVM on this class path.
     * @param source {@code captured} for a kept {@code ThreadLocalRandom.current()},
     * {@code library} for {@link BackOff#THREAD_LOCAL_RANDOM}
     * @return what it printed
     */
    static String run(String source) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                JitterProbe.class.getName(), source)
            .redirectErrorStream(true)
            .start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the jitter probe did not end within 60 s");
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (process.exitValue() != 0) {
            throw new AssertionError("the jitter probe failed: " + output);
        }
        return output;
    }

}
