package io.github.llmthrottle.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One page of {@code docs/reference}, read as its tests need it: the rows of the tables
 * under each {@code ##} or {@code ###} heading, and the names in backticks that a row's
 * first cell lists ({@code `a`, `.b`} names {@code a} and a sibling {@code b} of it).
 */
final class ReferencePage {

    static final Path DOCS = Path.of("..", "docs");

    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    private final Map<String, List<List<String>>> sections = new LinkedHashMap<>();

    private ReferencePage(String text) {
        String section = "";
        for (String line : text.split("\n")) {
            if (line.startsWith("## ") || line.startsWith("### ")) {
                section = line.substring(line.indexOf(' ') + 1).strip();
            }
            else if (line.startsWith("|---")) {
                // the line above was the table's header
                List<List<String>> rows = this.sections.get(section);
                rows.remove(rows.size() - 1);
            }
            else if (line.startsWith("|")) {
                List<String> cells = new ArrayList<>();
                for (String cell : line.substring(1, line.lastIndexOf('|')).split("\\|", -1)) {
                    cells.add(cell.strip());
                }
                this.sections.computeIfAbsent(section, (key) -> new ArrayList<>()).add(cells);
            }
        }
    }

    static ReferencePage read(String page) throws IOException {
        return new ReferencePage(Files.readString(DOCS.resolve("reference").resolve(page), StandardCharsets.UTF_8));
    }

    /**
     * The table rows of a section, each a list of its cells.
     * @param heading the section's heading, as written after {@code ## } or {@code ### }
     * @return the rows, empty when the section has no table
     */
    List<List<String>> rows(String heading) {
        return this.sections.getOrDefault(heading, List.of());
    }

    /** The headings of the sections that hold a table. */
    List<String> headings() {
        return new ArrayList<>(this.sections.keySet());
    }

    /**
     * The names a cell lists in backticks, a name starting with a dot standing for a
     * sibling of the first: {@code `a.b`, `.c`} is {@code a.b} and {@code a.c}.
     * @param cell the cell
     * @return the names
     */
    static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        String parent = "";
        Matcher code = CODE.matcher(cell);
        while (code.find()) {
            String name = code.group(1);
            if (name.startsWith(".")) {
                names.add(parent + name.substring(1));
            }
            else {
                names.add(name);
                int dot = name.lastIndexOf('.');
                parent = (dot >= 0) ? name.substring(0, dot + 1) : "";
            }
        }
        return names;
    }

    /**
     * The text of a cell's first code span, or the cell as it is without one.
     * @param cell the cell
     * @return the code
     */
    static String code(String cell) {
        Matcher code = CODE.matcher(cell);
        return code.find() ? code.group(1) : cell;
    }

}
