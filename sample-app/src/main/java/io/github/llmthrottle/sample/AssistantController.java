package io.github.llmthrottle.sample;

import io.github.llmthrottle.sample.AssistantService.AnalysisJob;
import io.github.llmthrottle.sample.AssistantService.Document;
import io.github.llmthrottle.sample.AssistantService.Question;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * REST endpoints over the {@link AssistantService}, to try the starter by hand:
 * {@code curl 'localhost:8080/api/ask?q=hello'}.
 */
@RestController
@RequestMapping("/api")
class AssistantController {

    private final AssistantService assistant;

    private final DemoRun demo;

    AssistantController(AssistantService assistant, DemoRun demo) {
        this.assistant = assistant;
        this.demo = demo;
    }

    @GetMapping("/ask")
    Answer ask(@RequestParam("q") String question) {
        return this.assistant.answer(new Question(question));
    }

    @PostMapping("/summarize")
    Answer summarize(@RequestBody Document document) {
        return this.assistant.summarize(document);
    }

    @PostMapping("/reply")
    Answer reply(@RequestBody Document document) {
        return this.assistant.draftReply(document);
    }

    @PostMapping("/report")
    Answer report(@RequestBody AnalysisJob job) {
        return this.assistant.streamReport(job);
    }

    @PostMapping("/analyze")
    Answer analyze(@RequestBody AnalysisJob job) {
        return this.assistant.analyze(job);
    }

    @GetMapping("/classify")
    Answer classify(@RequestParam("text") String text) {
        return this.assistant.classify(text);
    }

    @GetMapping("/demo")
    DemoRun.Progress demo() {
        return this.demo.progress();
    }

}
