package io.javelin.engine.server;

import com.fasterxml.jackson.databind.JsonNode;
import reactor.core.publisher.Flux;

/** What a handler answers: a status with a JSON body, no body, or a streamed Arrow IPC body. */
record Reply(int status, JsonNode json, Flux<byte[]> arrow) {

    static Reply json(int status, JsonNode body) {
        return new Reply(status, body, null);
    }

    static Reply empty(int status) {
        return new Reply(status, null, null);
    }

    static Reply arrow(Flux<byte[]> body) {
        return new Reply(200, null, body);
    }
}
