package io.github.llmthrottle;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Classes stay small enough to read in one sitting: no main class of the library above
 * 450 lines, and none of the call pipeline ({@code client}) above 300, where the most
 * state meets. A class that grows past its limit is split along a seam, not squeezed.
 */
class SourceSizeTests {

    private static final List<String> MODULES = List.of("core", "redis", "spring-ai", "sdk", "langchain4j",
            "autoconfigure", "testkit");

    @Test
    void noMainClassIsAbove450Lines() throws IOException {
        assertThat(linesAbove(450, "")).isEmpty();
    }

    @Test
    void noMainClassOfTheCallPipelineIsAbove300Lines() throws IOException {
        assertThat(linesAbove(300, "io/github/llmthrottle/client/")).isEmpty();
    }

    private static Map<String, Long> linesAbove(long limit, String under) throws IOException {
        Map<String, Long> tooLong = new TreeMap<>();
        int sources = 0;
        for (String module : MODULES) {
            Path root = Path.of("..", module, "src", "main", "java");
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
                    if (!root.relativize(file).toString().replace('\\', '/').startsWith(under)) {
                        continue;
                    }
                    sources++;
                    long lines;
                    try (Stream<String> text = Files.lines(file)) {
                        lines = text.count();
                    }
                    if (lines > limit) {
                        tooLong.put(root.relativize(file).toString(), lines);
                    }
                }
            }
        }
        assertThat(sources).as("main classes found under '%s'", under).isGreaterThan(20);
        return tooLong;
    }

}
