// Generated from docs/openapi.json by `pnpm openapi` (openapi-typescript). Do not edit.

export type paths = {
    "/v1/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description `q` matches part of the message id, event type, consumer external_id or Idempotency-Key. With `q`, `status` or `event_type` and no `since`, only the last 7 days are searched. A cursor outside the retention window is refused (422). A filtered page may hold fewer items than `limit`, even none, with a `next_cursor` (the store bounds what one page reads): only a null `next_cursor` ends the list.
         *
         *     Scope: `logs:read`.
         */
        get: operations["listMessages"];
        put?: never;
        /**
         * Send a message
         * @description Creates one delivery per matching endpoint of the consumer and answers 202 once the message and its deliveries are stored. The same Idempotency-Key returns the same id for 24 hours (the first message wins); such a replay carries the header `idempotent-replayed: true`. An unknown consumer is created on the spot (0 deliveries). Test-environment messages are limited to 1,000 per environment per UTC day (402 plan_limit). The payload may be up to 1 MB of JSON (422 beyond); a request body over 1.1 MB is refused unread (413 too_large).
         *
         *     Scope: `messages:send`.
         */
        post: operations["sendMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a message
         * @description The payload, and each delivery with its newest 20 attempts (oldest of them first); a delivery with more has an `attempts_next_cursor` for listDeliveryAttempts. An id outside the retention window is 404.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getMessage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a delivery
         * @description One delivery of a message to one endpoint, with its newest 20 attempts, as getMessage shows it (the id the retry operation takes); `attempts_next_cursor` pages the older ones (listDeliveryAttempts). An unknown id, one of another environment, or one outside the retention window is 404.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a delivery’s attempts
         * @description Every attempt of one delivery, newest first, paged: the way to the attempts older than the 20 a delivery shows (start from its `attempts_next_cursor`, or without a cursor from the newest). An unknown delivery id, or one outside the retention window, is 404; a cursor of another list or outside the retention window is 422.
         *
         *     Scope: `logs:read`.
         */
        get: operations["listDeliveryAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/deliveries/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a delivery
         * @description Sends the delivery again at once, as the same message (same webhook-id). The answer is the delivery as queued, as getDelivery shows it: its newest 20 attempts so far and `attempts_next_cursor` for older ones. 409 conflict when its endpoint is paused, disabled or deleted, or when the delivery already has 100 attempts (a send in flight counted): manual retries stop there; send the payload as a new message instead.
         *
         *     Scope: `messages:retry`.
         */
        post: operations["retryDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consumers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List consumers
         * @description Scope: `logs:read`.
         */
        get: operations["listConsumers"];
        put?: never;
        /**
         * Create a consumer
         * @description A consumer is one of your customers. Its external_id is your own id for it and is unique (409 conflict).
         *
         *     Scope: `consumers:write`.
         */
        post: operations["createConsumer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consumers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a consumer
         * @description Added: one consumer by its id, with its external_id (what a message names it by). 404 in another environment.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getConsumer"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/consumers/{id}/portal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a portal link
         * @description A link to the customer settings page for this consumer, valid 15 minutes. Only `frame_origin` may embed it in an iframe. Not on the Free plan (402 plan_limit).
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["createPortalLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List endpoints
         * @description By id, up to 1,000 a page (`limit`), all of nearly every tenant's in one: the spec shows `{ items }` alone, so `next_cursor` is an addition, null unless more endpoints follow. A cursor outside the retention window is refused (422).
         *
         *     Scope: `logs:read`.
         */
        get: operations["listEndpoints"];
        put?: never;
        /**
         * Create an endpoint
         * @description The URL must be https on port 443 or 8443 and resolve to a public address (422 otherwise). At most 20 endpoints per consumer (422). The answer carries the signing secret, shown only here.
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["createEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an endpoint
         * @description The endpoint with its recent attempts, the count of deliveries retrying, its latest recovery and its throughput now (rate limit, adaptive concurrency, sends in flight, a receiver’s Retry-After hold).
         *
         *     Scope: `logs:read`.
         */
        get: operations["getEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete an endpoint
         * @description Its open deliveries end as failed, in the same transaction.
         *
         *     Scope: `endpoints:write`.
         */
        delete: operations["deleteEndpoint"];
        options?: never;
        head?: never;
        /**
         * Update an endpoint
         * @description Every field is optional. `retry: null` restores the default policy, `compat_signature: null` removes it. `status` pauses (messages are held) or resumes (held messages of this month and last month are sent).
         *
         *     Scope: `endpoints:write`.
         */
        patch: operations["updateEndpoint"];
        trace?: never;
    };
    "/v1/endpoints/{id}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an endpoint’s health
         * @description Attempts made to the endpoint in the window (every try counted), how many succeeded (2xx), the failures by class, latency percentiles and a series of buckets whose counts add up to the totals; and, as of now, its deliveries waiting and the oldest one’s creation. Read from rollups kept as attempts complete, so it costs the same whatever the traffic. The window ends at the end of the bucket holding now: `1h` is 12 five-minute buckets, `24h` (the default) 24 hourly ones, `7d` 28 six-hourly ones (UTC 00, 06, 12, 18 h). Percentiles are the bounds of a fixed log-spaced latency histogram (about √2 apart), so never below the true value and at most ~41 % above it.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getEndpointStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description For 24 hours deliveries carry a signature made with the old secret as well as the new one.
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["rotateEndpointSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints/{id}/transformation/simulate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Try a transformation
         * @description Runs `code` (or the endpoint’s stored transformation) on a webhook of `event_type` with `payload`, as a send would — the same sandbox, budget and checks of what it returns — and answers the request that would be sent, a cancel, or the error an attempt would record. Nothing is sent or stored. The code is given the endpoint’s custom headers as responses show them (redacted). 422 when no code is given and the endpoint has no transformation; 503 when the sandbox is busy (try again shortly).
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["simulateEndpointTransformation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints/{id}/recover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a recovery
         * @description Re-sends the deliveries to this endpoint that had ended in failure, for messages created at or after `since`: 50 every 10 seconds, as the same messages. 409 conflict when the endpoint is not active or a recovery already runs.
         *
         *     Scope: `messages:retry`.
         */
        post: operations["recoverEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/endpoints/{id}/recoveries/{recovery_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a recovery
         * @description Scope: `logs:read`.
         */
        get: operations["getRecovery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/egress-ips": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the fixed source addresses
         * @description The addresses `fixed_ip` endpoints’ webhooks are sent from (the fixed IP pool), for customers to allowlist. An address taken out of the pool stays listed with `retiring_at` for 30 days after the change; current ones have `retiring_at: null` and come first. Any key of the environment may list them.
         *
         *     Any key of the environment (no scope).
         */
        get: operations["listEgressIps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List event types
         * @description Ordered by name, without paging; each without its schema and examples (get one for them). Any key of the environment may list them. It takes no query fields: one given is 422, as in every list.
         *
         *     Any key of the environment (no scope).
         */
        get: operations["listEventTypes"];
        put?: never;
        /**
         * Register an event type
         * @description With an optional catalog entry: a JSON Schema (draft 2020-12, at most 64 KB) of the payload, up to 5 examples valid against it, `validation: enforce` to refuse messages whose payload does not match, and `deprecated`.
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["createEventType"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-types/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the event catalog as OpenAPI
         * @description An OpenAPI 3.1 document with one `webhooks` entry per event type: the webhook envelope with the event type’s schema as `data`, its examples and the signature headers — for generating a receiver’s types. Any key of the environment may read it.
         *
         *     Any key of the environment (no scope).
         */
        get: operations["exportEventCatalog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-types/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an event type
         * @description With its schema and examples.
         *
         *     Any key of the environment (no scope).
         */
        get: operations["getEventType"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Update an event type’s catalog entry
         * @description Description, schema, examples, validation and deprecated; absent fields stay. A changed schema makes a new version (the earlier one is kept: list them with the versions route). Examples must match the schema the event type will have; `enforce` needs a schema. Enforcement follows within 5 seconds on every gateway.
         *
         *     Scope: `endpoints:write`.
         */
        patch: operations["updateEventType"];
        trace?: never;
    };
    "/v1/event-types/{name}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List an event type’s earlier schemas
         * @description Newest first, the 100 most recent; the current schema is the event type’s own.
         *
         *     Any key of the environment (no scope).
         */
        get: operations["listEventTypeVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-conditions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the alert conditions
         * @description The failure-notification conditions of the key's environment (each environment has its own), or the defaults.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getAlertConditions"];
        /**
         * Change the alert conditions
         * @description A partial body changes only what it names, in the key's environment only (a test key cannot change live alerting).
         *
         *     Scope: `endpoints:write`.
         */
        put: operations["updateAlertConditions"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-targets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List alert targets
         * @description Scope: `logs:read`.
         */
        get: operations["listAlertTargets"];
        put?: never;
        /**
         * Add an alert target
         * @description A webhook (signed like deliveries; its secret is shown only here), a Slack-compatible chat webhook, or an e-mail address (needs SMTP_URL on the server). At most 20 per environment: the 21st is 422 `invalid`.
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["createAlertTarget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-targets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an alert target
         * @description The target with its latest notice attempts.
         *
         *     Scope: `logs:read`.
         */
        get: operations["getAlertTarget"];
        put?: never;
        post?: never;
        /**
         * Remove an alert target
         * @description Scope: `endpoints:write`.
         */
        delete: operations["deleteAlertTarget"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/alert-targets/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test notice
         * @description Queues a sample notice (type alert.test) to the target and waits up to 15 seconds for its first try, which it returns: check a target without breaking an endpoint.
         *
         *     Scope: `endpoints:write`.
         */
        post: operations["testAlertTarget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = {
    message: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A message, delivered to your customer’s endpoint
         * @description For each delivery attempt Wirehook sends one POST to the endpoint URL (https, port 443 or 8443), signed with the endpoint’s secret (`whsec_…`) as [Standard Webhooks](https://www.standardwebhooks.com/) specifies. Any Standard Webhooks library verifies it; `@wirehook/receiver` does too, and says why when it refuses one.
         *
         *     **Signature.** `webhook-signature` holds `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the secret after `whsec_`. During the 24 hours after a secret rotation it holds two signatures, separated by a space (new secret first): accept the request when any one matches. Compare in constant time, over the raw body bytes, and refuse a `webhook-timestamp` more than 5 minutes from your clock (replays).
         *
         *     **Ordered deliveries.** An endpoint with `ordering: key` delivers the messages sharing an `ordering_key` one at a time, in acceptance order; each such delivery also carries `webhook-ordering-key` and `webhook-sequence` (unordered deliveries have neither header).
         *
         *     **Compatible signature.** An endpoint with `compat_signature` also gets that header (its name is configured), carrying `prefix` + hex or base64 of HMAC-SHA256 over the body or `{webhook-timestamp}.{body}`.
         *
         *     **Retries.** `webhook-id` is the message id, the same on every attempt and retry of it: drop ids you have processed. `webhook-timestamp` is the send time of each attempt. A 2xx within 15 s ends the delivery as success; any other status, a redirect (never followed), a timeout or a connection failure is an attempt that failed, retried on the endpoint’s retry policy.
         */
        post: operations["receiveMessage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    failureNotice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A failure notice, sent to your webhook alert target
         * @description When an alert condition fires (`PUT /v1/alert-conditions`), Wirehook POSTs a notice to each `webhook` alert target of the environment, signed like a delivery with the target’s own secret (`whsec_…`, shown when the target was made), so the same Standard Webhooks libraries verify it.
         *
         *     `webhook-id` is the notice’s id (`ntc_…`), the same on every try of it. The body has a delivery’s envelope: `type` (`alert.…`), `timestamp` (ISO 8601 UTC, like a delivery’s) and `data`; the times inside `data` are Unix milliseconds, as everywhere in the API. A try that gets no 2xx within 10 s is repeated after 10 s, 1 min, 5 min and 30 min (a test notice is tried once).
         */
        post: operations["receiveFailureNotice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type components = {
    schemas: {
        /** @description Any JSON value: an object, array, string, number, boolean or null. */
        JsonValue: unknown;
        /** @description The body of every error response. */
        Error: {
            /**
             * @description the error code
             * @enum {string}
             */
            error: "unauthorized" | "plan_limit" | "forbidden" | "not_found" | "conflict" | "too_large" | "invalid" | "rate_limited" | "unavailable" | "internal";
            /** @description what was wrong, in words a person understands */
            message: string;
        };
        RetryPolicy: {
            /**
             * @description re-sends after the first send; 0 means none
             * @enum {number}
             */
            count: 0 | 1 | 2 | 3 | 5 | 7 | 12;
            /** @enum {string} */
            interval: "progressive" | "1m" | "5m" | "30m" | "1h" | "6h";
        };
        CompatSignature: {
            header: string;
            /** @enum {string} */
            content: "body" | "timestamp_body";
            /** @enum {string} */
            encoding: "hex" | "base64";
            prefix?: string;
        };
        Consumer: {
            /**
             * @description con_…
             * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
             */
            id: string;
            /**
             * @description the sender's own id for the customer
             * @example customer-42
             */
            external_id: string;
            /** @example Globex */
            name: string | null;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            endpoint_count: number;
        };
        Endpoint: {
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            id: string;
            /**
             * @description the consumer it belongs to (con_…)
             * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
             */
            consumer_id: string;
            /**
             * @description the endpoint’s URL
             * @example https://hooks.globex.example/wirehook
             */
            url: string;
            description: string | null;
            /** @description null: every event type */
            event_types: string[] | null;
            /** @description sent from the fixed source addresses (the egress relay) */
            fixed_ip: boolean;
            /**
             * @description http: webhooks are POSTed to url; listen: a `wirehook listen` connection receives them (url is where the CLI forwards them)
             * @enum {string}
             */
            type: "http" | "listen";
            /** @enum {string} */
            status: "active" | "paused" | "disabled";
            /** @description why Wirehook stopped the endpoint, when disabled */
            disabled_reason: string | null;
            failing_since: number | null;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            retry: components["schemas"]["RetryPolicy"];
            compat_signature: components["schemas"]["CompatSignature"] | null;
            /** @description custom headers sent with every webhook, each value redacted to its last 4 characters (…abcd); null: none */
            headers: {
                [key: string]: string;
            } | null;
            /** @description the client certificate presented to this endpoint (mutual TLS); null: none */
            tls: {
                subject: string;
                issuer: string;
                /** @description when the certificate expires (Unix milliseconds) */
                not_after: number;
                /** @description SHA-256 of the certificate, colon-separated hex */
                fingerprint_sha256: string;
                /** @description the subject of the first server_ca certificate; null without one */
                server_ca_subject: string | null;
            } | null;
            /** @description the OAuth 2.0 client credentials a token is fetched with (the client secret is never returned); null: none */
            auth: {
                /** @constant */
                type: "oauth2_client_credentials";
                token_url: string;
                client_id: string;
                scope: string | null;
                audience: string | null;
                /** @enum {string} */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            /** @description the JavaScript run on each webhook before it is sent here (see POST /v1/endpoints/{id}/transformation/simulate); null: none */
            transformation: {
                code: string;
                enabled: boolean;
            } | null;
            /**
             * @description key: deliveries of messages sharing an ordering_key go one at a time, in acceptance order
             * @enum {string}
             */
            ordering: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit: number | null;
        };
        AttemptRow: {
            /**
             * @description att_…
             * @example att_01JH4Z6R1T4Y9Z5A7B1C2D3E4F
             */
            id: string;
            /**
             * @description when the attempt was made (Unix milliseconds)
             * @example 1767259800000
             */
            at: number;
            /** @description the receiver's HTTP status; null when none came */
            response_status: number | null;
            /** @description the start of the receiver's response */
            response_head: string | null;
            duration_ms: number;
            /** @description why the attempt failed, e.g. "timeout: no response within 15 s" */
            error: string | null;
            /** @enum {string} */
            via: "direct" | "relay" | "listen";
            /** @example 203.0.113.7 */
            source_ip: string | null;
            /** @description the URL this attempt was sent to (the endpoint’s at the time); null for attempts recorded before Wirehook kept it */
            url: string | null;
        };
        Recovery: {
            /**
             * @description rcv_…
             * @example rcv_01JH4Z7S2V5Z0A6B8C2D3E4F5G
             */
            id: string;
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            endpoint_id: string;
            /**
             * @description messages created at or after it are targeted (Unix milliseconds)
             * @example 1767259800000
             */
            since: number;
            /** @enum {string} */
            status: "running" | "done" | "stopped";
            /** @description deliveries to re-send */
            total: number;
            /** @description queued so far */
            queued: number;
            /**
             * @description when it started (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            finished_at: number | null;
        };
        Delivery: {
            /**
             * @description dlv_… — the id the retry operation takes
             * @example dlv_01JH4Z6Q8S3X8Y4Z6A0B1C2D3E
             */
            id: string;
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            endpoint_id: string;
            /**
             * @description where its next attempt goes: its endpoint’s current URL
             * @example https://hooks.globex.example/wirehook
             */
            url: string;
            /** @enum {string} */
            status: "pending" | "retrying" | "success" | "failed";
            attempt_count: number;
            next_attempt_at: number | null;
            /** @description the lane's key when the delivery is ordered (its endpoint had ordering key); null otherwise */
            ordering_key: string | null;
            /** @description its place in the lane (webhook-sequence): 1 for the first message, +1 per message; null when unordered */
            sequence: number | null;
            /**
             * @description why the delivery, open (pending or retrying), is not being sent now; null when it is done or only waits for the time next_attempt_at names (docs/semantics.md: waiting_on)
             * @example {
             *       "reason": "lane",
             *       "sequence": 2
             *     }
             */
            waiting_on: ({
                /** @constant */
                reason: "lane";
                /** @description its own place in the lane: it waits for the earlier ones of its ordering_key */
                sequence: number;
            } | {
                /**
                 * @description the receiver’s Retry-After holds its endpoint (the endpoint’s throughput.held_until)
                 * @constant
                 */
                reason: "hold";
            } | {
                /**
                 * @description due, and spaced by its endpoint’s rate_limit
                 * @constant
                 */
                reason: "rate_limit";
            } | {
                /**
                 * @description its endpoint is paused or disabled
                 * @constant
                 */
                reason: "paused";
            } | {
                /**
                 * @description due, and waiting for one of its endpoint’s connection slots
                 * @constant
                 */
                reason: "concurrency";
            }) | null;
            /** @description its newest attempts, at most 20, oldest of them first (older ones: GET /v1/deliveries/{id}/attempts with attempts_next_cursor) */
            attempts: components["schemas"]["AttemptRow"][];
            /** @description null when `attempts` holds every attempt; otherwise the cursor of GET /v1/deliveries/{id}/attempts for the attempts older than those shown */
            attempts_next_cursor: string | null;
        };
        MessageRow: {
            /**
             * @description msg_… — also the webhook-id header of every delivery
             * @example msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D
             */
            id: string;
            /**
             * @description the event type
             * @example invoice.paid
             */
            event_type: string;
            consumer: {
                /**
                 * @description con_…
                 * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
                 */
                id: string;
                /**
                 * @description the sender's own id for the customer
                 * @example customer-42
                 */
                external_id: string;
                /** @example Globex */
                name: string | null;
            };
            /**
             * @description when it was accepted (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /** @enum {string} */
            status: "pending" | "retrying" | "success" | "failed";
            attempts: {
                count: number;
                last_at: number | null;
            };
            /** @description the first delivery's URL; null when it has none */
            endpoint_url: string | null;
        };
        EventType: {
            /**
             * @description the event type
             * @example invoice.paid
             */
            name: string;
            /** @example An invoice was paid */
            description: string | null;
            archived_at: number | null;
            /**
             * @description enforce: a message whose payload does not match the schema is refused (422)
             * @enum {string}
             */
            validation: "none" | "enforce";
            deprecated: boolean;
            /** @description 1 at registration; one more each time the schema changes */
            version: number;
            /**
             * @description when its catalog entry last changed (Unix milliseconds)
             * @example 1767259800000
             */
            updated_at: number;
            /** @description the payload’s JSON Schema (draft 2020-12); null: none */
            schema: {
                [key: string]: unknown;
            } | null;
            /** @description example payloads, each valid against the schema */
            examples: unknown[];
        };
        AlertTarget: {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "webhook";
            /** @example https://alerts.acme.example/wirehook */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "chat";
            /** @example https://hooks.slack.example/services/T000/B000/XXXX */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "email";
            /** @example oncall@acme.example */
            address: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
        };
        NoticeAttempt: {
            /** @example ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718 */
            notice_id: string;
            /** @example alert.delivery_failure */
            type: string;
            /**
             * @description when it was tried (Unix milliseconds)
             * @example 1767259800000
             */
            at: number;
            response_status: number | null;
            error: string | null;
            duration_ms: number;
        };
        /** @description A failure notice’s body: `{type, timestamp, data}`, the envelope a delivery has. */
        AlertNotice: {
            /**
             * @description what the notice is about
             * @enum {string}
             */
            type: "alert.delivery_failure" | "alert.endpoint_disabled" | "alert.pending_retries" | "alert.usage" | "alert.egress_ips" | "alert.certificate_expiring" | "alert.test";
            /**
             * Format: date-time
             * @description when the notice was made (ISO 8601 UTC, milliseconds), as a delivery’s `timestamp`: the same on every try
             * @example 2026-01-01T09:30:00.000Z
             */
            timestamp: string;
            data: {
                /** @description the environments it concerns */
                environments: ("live" | "test")[];
                /** @description alert.delivery_failure, alert.endpoint_disabled and alert.certificate_expiring: the endpoints concerned (alert.certificate_expiring: last_error and last_status null); empty for the other types */
                endpoints: {
                    /** @description ep_… */
                    id: string;
                    url: string;
                    /** @enum {string} */
                    environment: "live" | "test";
                    consumer: {
                        external_id: string;
                    };
                    /** @description the first failed attempt of the current streak (Unix milliseconds) */
                    failing_since: number | null;
                    last_error: string | null;
                    last_status: number | null;
                    /** @description msg_… of the last failed attempt, when known */
                    message_id?: string | null;
                    /** @description dlv_… of the last failed attempt, when known */
                    delivery_id?: string | null;
                }[];
                /** @description the same in English words (what chat and e-mail targets get) */
                summary: string;
                /** @description alert.pending_retries: deliveries waiting to retry in the environment */
                retrying?: number;
                /** @description alert.pending_retries and alert.usage: the threshold crossed */
                threshold?: number;
                /** @description alert.usage: this month’s live messages */
                used?: number;
                /** @description alert.usage: the plan’s monthly limit */
                limit?: number;
                /** @description alert.usage: the percentage of the limit reached */
                percent?: number;
                /** @description alert.egress_ips: new addresses */
                added?: string[];
                /** @description alert.egress_ips: addresses taken out */
                retiring?: string[];
                /** @description alert.egress_ips: until when the taken-out addresses stay listed (Unix milliseconds) */
                retiring_at?: number | null;
                /** @description alert.egress_ips: the whole list as GET /v1/egress-ips gives it */
                addresses?: {
                    ip: string;
                    family: 4 | 6;
                    /** @description null: not retiring (Unix milliseconds) */
                    retiring_at: number | null;
                }[];
                /** @description alert.certificate_expiring: the client certificates (mutual TLS) expiring within 14 days, soonest first (at most 100) */
                certificates?: {
                    /** @description ep_… */
                    endpoint_id: string;
                    /** @enum {string} */
                    environment: "live" | "test";
                    url: string;
                    /** @description the endpoint’s customer; absent when it could not be read */
                    consumer?: {
                        external_id: string;
                    };
                    /** @description the client certificate’s subject, as the endpoint’s `tls.subject` */
                    subject: string;
                    /** @description when the certificate expires (Unix milliseconds), as the endpoint’s `tls.not_after` */
                    not_after: number;
                    /** @description SHA-256 of the certificate, colon-separated hex, as the endpoint’s `tls.fingerprint_sha256` */
                    fingerprint_sha256: string;
                    /** @description days until `not_after` when the notice was made, rounded up (1: less than a day left) */
                    days_left: number;
                }[];
            };
        };
        MessageAccepted: {
            /**
             * @description msg_…
             * @example msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D
             */
            id: string;
            /** @description deliveries created (0 when the consumer has no matching endpoint) */
            deliveries: number;
        };
        MessageRowPage: {
            items: components["schemas"]["MessageRow"][];
            /** @description pass as cursor for the next page; null on the last */
            next_cursor: string | null;
        };
        MessageDetail: {
            /**
             * @description msg_… — also the webhook-id header of every delivery
             * @example msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D
             */
            id: string;
            /**
             * @description the event type
             * @example invoice.paid
             */
            event_type: string;
            consumer: {
                /**
                 * @description con_…
                 * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
                 */
                id: string;
                /**
                 * @description the sender's own id for the customer
                 * @example customer-42
                 */
                external_id: string;
                /** @example Globex */
                name: string | null;
            };
            /**
             * @description when it was accepted (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /** @enum {string} */
            status: "pending" | "retrying" | "success" | "failed";
            idempotency_key: string | null;
            /** @description the ordering key it was sent with; null: none */
            ordering_key: string | null;
            payload: components["schemas"]["JsonValue"];
            deliveries: components["schemas"]["Delivery"][];
        };
        AttemptRowPage: {
            items: components["schemas"]["AttemptRow"][];
            /** @description pass as cursor for the next page; null on the last */
            next_cursor: string | null;
        };
        ConsumerPage: {
            items: components["schemas"]["Consumer"][];
            /** @description pass as cursor for the next page; null on the last */
            next_cursor: string | null;
        };
        PortalLink: {
            /**
             * @description the portal link to give the customer
             * @example https://portal.wirehook.example/#token=pl_…
             */
            url: string;
            /**
             * @description when the link stops working (Unix milliseconds)
             * @example 1767259800000
             */
            expires_at: number;
        };
        EndpointList: {
            items: components["schemas"]["Endpoint"][];
            /** @description pass as cursor for the next page; null on the last */
            next_cursor: string | null;
        };
        /** @description An endpoint with its signing secret, returned once at creation. */
        EndpointWithSecret: {
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            id: string;
            /**
             * @description the consumer it belongs to (con_…)
             * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
             */
            consumer_id: string;
            /**
             * @description the endpoint’s URL
             * @example https://hooks.globex.example/wirehook
             */
            url: string;
            description: string | null;
            /** @description null: every event type */
            event_types: string[] | null;
            /** @description sent from the fixed source addresses (the egress relay) */
            fixed_ip: boolean;
            /**
             * @description http: webhooks are POSTed to url; listen: a `wirehook listen` connection receives them (url is where the CLI forwards them)
             * @enum {string}
             */
            type: "http" | "listen";
            /** @enum {string} */
            status: "active" | "paused" | "disabled";
            /** @description why Wirehook stopped the endpoint, when disabled */
            disabled_reason: string | null;
            failing_since: number | null;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            retry: components["schemas"]["RetryPolicy"];
            compat_signature: components["schemas"]["CompatSignature"] | null;
            /** @description custom headers sent with every webhook, each value redacted to its last 4 characters (…abcd); null: none */
            headers: {
                [key: string]: string;
            } | null;
            /** @description the client certificate presented to this endpoint (mutual TLS); null: none */
            tls: {
                subject: string;
                issuer: string;
                /** @description when the certificate expires (Unix milliseconds) */
                not_after: number;
                /** @description SHA-256 of the certificate, colon-separated hex */
                fingerprint_sha256: string;
                /** @description the subject of the first server_ca certificate; null without one */
                server_ca_subject: string | null;
            } | null;
            /** @description the OAuth 2.0 client credentials a token is fetched with (the client secret is never returned); null: none */
            auth: {
                /** @constant */
                type: "oauth2_client_credentials";
                token_url: string;
                client_id: string;
                scope: string | null;
                audience: string | null;
                /** @enum {string} */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            /** @description the JavaScript run on each webhook before it is sent here (see POST /v1/endpoints/{id}/transformation/simulate); null: none */
            transformation: {
                code: string;
                enabled: boolean;
            } | null;
            /**
             * @description key: deliveries of messages sharing an ordering_key go one at a time, in acceptance order
             * @enum {string}
             */
            ordering: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit: number | null;
            /**
             * @description whsec_… — shown only here; give it to the customer
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        EndpointDetail: {
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            id: string;
            /**
             * @description the consumer it belongs to (con_…)
             * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
             */
            consumer_id: string;
            /**
             * @description the endpoint’s URL
             * @example https://hooks.globex.example/wirehook
             */
            url: string;
            description: string | null;
            /** @description null: every event type */
            event_types: string[] | null;
            /** @description sent from the fixed source addresses (the egress relay) */
            fixed_ip: boolean;
            /**
             * @description http: webhooks are POSTed to url; listen: a `wirehook listen` connection receives them (url is where the CLI forwards them)
             * @enum {string}
             */
            type: "http" | "listen";
            /** @enum {string} */
            status: "active" | "paused" | "disabled";
            /** @description why Wirehook stopped the endpoint, when disabled */
            disabled_reason: string | null;
            failing_since: number | null;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            retry: components["schemas"]["RetryPolicy"];
            compat_signature: components["schemas"]["CompatSignature"] | null;
            /** @description custom headers sent with every webhook, each value redacted to its last 4 characters (…abcd); null: none */
            headers: {
                [key: string]: string;
            } | null;
            /** @description the client certificate presented to this endpoint (mutual TLS); null: none */
            tls: {
                subject: string;
                issuer: string;
                /** @description when the certificate expires (Unix milliseconds) */
                not_after: number;
                /** @description SHA-256 of the certificate, colon-separated hex */
                fingerprint_sha256: string;
                /** @description the subject of the first server_ca certificate; null without one */
                server_ca_subject: string | null;
            } | null;
            /** @description the OAuth 2.0 client credentials a token is fetched with (the client secret is never returned); null: none */
            auth: {
                /** @constant */
                type: "oauth2_client_credentials";
                token_url: string;
                client_id: string;
                scope: string | null;
                audience: string | null;
                /** @enum {string} */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            /** @description the JavaScript run on each webhook before it is sent here (see POST /v1/endpoints/{id}/transformation/simulate); null: none */
            transformation: {
                code: string;
                enabled: boolean;
            } | null;
            /**
             * @description key: deliveries of messages sharing an ordering_key go one at a time, in acceptance order
             * @enum {string}
             */
            ordering: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit: number | null;
            /** @description the latest attempts to this endpoint, newest first */
            recent: components["schemas"]["AttemptRow"][];
            retrying_count: number;
            /** @description the latest recovery, or null */
            recovery: components["schemas"]["Recovery"] | null;
            /** @description How fast Wirehook sends to the endpoint now. */
            throughput: {
                /** @description the endpoint’s rate_limit (deliveries per second); null: none */
                rate_limit: number | null;
                /** @description sends in flight allowed at once, cut by the receiver’s 429, 503 and timeouts and grown back by its successes; null: not cut (its connection slots) */
                concurrency: number | null;
                /** @description sends to the endpoint in flight now, across dispatchers */
                in_flight: number;
                held_until: number | null;
            };
        };
        EndpointStats: {
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            endpoint_id: string;
            /** @enum {string} */
            window: "1h" | "24h" | "7d";
            /**
             * @description start of the first bucket (Unix milliseconds)
             * @example 1767259800000
             */
            from: number;
            /**
             * @description end of the last bucket (the one holding now, still filling) (Unix milliseconds)
             * @example 1767259800000
             */
            to: number;
            /** @description attempts made in the window, every try counted */
            attempts: number;
            /** @description of those, answered 2xx */
            succeeded: number;
            /** @description the rest */
            failed: number;
            /** @description succeeded / attempts, 0 to 1; null without attempts */
            success_rate: number | null;
            latency_ms: {
                /** @description median duration (ms; the bound of its latency-histogram bucket, at most ~41 % above the true value); null without attempts */
                p50: number | null;
                /** @description 95th percentile (ms; the bound of its latency-histogram bucket, at most ~41 % above the true value); null without attempts */
                p95: number | null;
                /** @description 99th percentile (ms; the bound of its latency-histogram bucket, at most ~41 % above the true value); null without attempts */
                p99: number | null;
            };
            /** @description failed attempts by class; they add up to failed (docs/semantics.md: Endpoint stats) */
            errors: {
                http_4xx: number;
                http_5xx: number;
                timeout: number;
                connection: number;
                tls: number;
                dns: number;
                refused: number;
                relay: number;
                auth: number;
                transformation: number;
            };
            /** @description deliveries waiting now (pending or retrying) */
            pending: number;
            oldest_pending_at: number | null;
            /** @description oldest first: 12 five-minute buckets (1h), 24 hourly (24h) or 28 six-hourly (7d); their counts add up to the totals */
            series: {
                /**
                 * @description start of the bucket (Unix milliseconds)
                 * @example 1767259800000
                 */
                at: number;
                attempts: number;
                succeeded: number;
                failed: number;
                /** @description the bucket’s 95th percentile (ms; the bound of its latency-histogram bucket, at most ~41 % above the true value); null without attempts */
                p95_ms: number | null;
            }[];
        };
        EndpointUpdated: {
            /**
             * @description ep_…
             * @example ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W
             */
            id: string;
            /**
             * @description the consumer it belongs to (con_…)
             * @example con_01JH4Z3A7K2M3N4P5Q6R7S8T9V
             */
            consumer_id: string;
            /**
             * @description the endpoint’s URL
             * @example https://hooks.globex.example/wirehook
             */
            url: string;
            description: string | null;
            /** @description null: every event type */
            event_types: string[] | null;
            /** @description sent from the fixed source addresses (the egress relay) */
            fixed_ip: boolean;
            /**
             * @description http: webhooks are POSTed to url; listen: a `wirehook listen` connection receives them (url is where the CLI forwards them)
             * @enum {string}
             */
            type: "http" | "listen";
            /** @enum {string} */
            status: "active" | "paused" | "disabled";
            /** @description why Wirehook stopped the endpoint, when disabled */
            disabled_reason: string | null;
            failing_since: number | null;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            retry: components["schemas"]["RetryPolicy"];
            compat_signature: components["schemas"]["CompatSignature"] | null;
            /** @description custom headers sent with every webhook, each value redacted to its last 4 characters (…abcd); null: none */
            headers: {
                [key: string]: string;
            } | null;
            /** @description the client certificate presented to this endpoint (mutual TLS); null: none */
            tls: {
                subject: string;
                issuer: string;
                /** @description when the certificate expires (Unix milliseconds) */
                not_after: number;
                /** @description SHA-256 of the certificate, colon-separated hex */
                fingerprint_sha256: string;
                /** @description the subject of the first server_ca certificate; null without one */
                server_ca_subject: string | null;
            } | null;
            /** @description the OAuth 2.0 client credentials a token is fetched with (the client secret is never returned); null: none */
            auth: {
                /** @constant */
                type: "oauth2_client_credentials";
                token_url: string;
                client_id: string;
                scope: string | null;
                audience: string | null;
                /** @enum {string} */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            /** @description the JavaScript run on each webhook before it is sent here (see POST /v1/endpoints/{id}/transformation/simulate); null: none */
            transformation: {
                code: string;
                enabled: boolean;
            } | null;
            /**
             * @description key: deliveries of messages sharing an ordering_key go one at a time, in acceptance order
             * @enum {string}
             */
            ordering: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit: number | null;
            /** @description How fast Wirehook sends to the endpoint now. */
            throughput: {
                /** @description the endpoint’s rate_limit (deliveries per second); null: none */
                rate_limit: number | null;
                /** @description sends in flight allowed at once, cut by the receiver’s 429, 503 and timeouts and grown back by its successes; null: not cut (its connection slots) */
                concurrency: number | null;
                /** @description sends to the endpoint in flight now, across dispatchers */
                in_flight: number;
                held_until: number | null;
            };
        };
        RotatedSecret: {
            /**
             * @description whsec_… — shown only here; give it to the customer
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        /**
         * @example {
         *       "cancel": false,
         *       "request": {
         *         "url": "https://hooks.example.com/in",
         *         "headers": {
         *           "content-type": "application/json",
         *           "x-tenant": "cus_7"
         *         },
         *         "body": "{\"type\":\"invoice.paid\",\"timestamp\":\"2026-11-29T12:00:00.000Z\",\"data\":{\"invoiceId\":\"in_1\"}}"
         *       },
         *       "error": null,
         *       "duration_ms": 2
         *     }
         */
        TransformationSimulation: {
            /** @description true: the code returned {cancel: true}, so nothing would be sent to this endpoint */
            cancel: boolean;
            /** @description the request that would be sent; null when cancelled or failed */
            request: {
                /** @description where it would be POSTed (the endpoint URL rules apply to a changed one) */
                url: string;
                /** @description the headers it would carry besides webhook-id, webhook-timestamp, webhook-signature and user-agent (made at the send): content-type and the custom headers as the code left them (a stored value the code was given is shown redacted, as it was given) */
                headers: {
                    [key: string]: string;
                };
                /** @description the exact body, {type, timestamp, data} with data the returned payload (timestamp: now) */
                body: string;
            } | null;
            /** @description why the attempt would fail (kind transformation, with line and column where known); null when it would be sent or cancelled */
            error: string | null;
            /** @description how long the run took, its wait for a sandbox included */
            duration_ms: number;
        };
        EgressIpList: {
            items: {
                /** @example 203.0.113.7 */
                ip: string;
                /** @description IPv4 or IPv6 */
                family: 4 | 6;
                retiring_at: number | null;
            }[];
        };
        EventTypeList: {
            items: {
                /**
                 * @description the event type
                 * @example invoice.paid
                 */
                name: string;
                /** @example An invoice was paid */
                description: string | null;
                archived_at: number | null;
                /**
                 * @description enforce: a message whose payload does not match the schema is refused (422)
                 * @enum {string}
                 */
                validation: "none" | "enforce";
                deprecated: boolean;
                /** @description 1 at registration; one more each time the schema changes */
                version: number;
                /** @description whether it has a schema (GET /v1/event-types/{name} returns it) */
                has_schema: boolean;
                /**
                 * @description when its catalog entry last changed (Unix milliseconds)
                 * @example 1767259800000
                 */
                updated_at: number;
            }[];
        };
        EventCatalogDocument: {
            [key: string]: unknown;
        };
        EventTypeVersionList: {
            items: {
                version: number;
                schema: {
                    [key: string]: unknown;
                } | null;
                /**
                 * @description when this version became current (Unix milliseconds)
                 * @example 1767259800000
                 */
                created_at: number;
                /**
                 * @description when the next version replaced it (Unix milliseconds)
                 * @example 1767259800000
                 */
                retired_at: number;
            }[];
        };
        AlertConditions: {
            /** @enum {string} */
            delivery_failure: "first" | "5m" | "15m" | "60m";
            automatic_stop: boolean;
            pending_retries: 100 | 1000 | 10000;
            usage: 50 | 80 | 100;
        };
        AlertTargetCreated: {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "webhook";
            /** @example https://alerts.acme.example/wirehook */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /**
             * @description webhook targets: whsec_…, shown only here
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret?: string;
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "chat";
            /** @example https://hooks.slack.example/services/T000/B000/XXXX */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /**
             * @description webhook targets: whsec_…, shown only here
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret?: string;
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "email";
            /** @example oncall@acme.example */
            address: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /**
             * @description webhook targets: whsec_…, shown only here
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret?: string;
        };
        AlertTargetList: {
            items: components["schemas"]["AlertTarget"][];
        };
        AlertTargetDetail: {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "webhook";
            /** @example https://alerts.acme.example/wirehook */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /** @description the latest notice attempts, newest first */
            recent: components["schemas"]["NoticeAttempt"][];
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "chat";
            /** @example https://hooks.slack.example/services/T000/B000/XXXX */
            url: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /** @description the latest notice attempts, newest first */
            recent: components["schemas"]["NoticeAttempt"][];
        } | {
            /**
             * @description atg_…
             * @example atg_01JH4Z8T3W6A1B7C9D3E4F5G6H
             */
            id: string;
            /** @constant */
            type: "email";
            /** @example oncall@acme.example */
            address: string;
            /**
             * @description when it was created (Unix milliseconds)
             * @example 1767259800000
             */
            created_at: number;
            /** @description the latest notice attempts, newest first */
            recent: components["schemas"]["NoticeAttempt"][];
        };
        AlertTest: {
            /**
             * @description the sample notice (its webhook-id for a webhook target)
             * @example ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718
             */
            notice_id: string;
            /** @description its first try, or null when the alerting engine has not tried it within 15 seconds (it still will) */
            attempt: components["schemas"]["NoticeAttempt"] | null;
        };
        SendMessageRequest: {
            consumer: string;
            event_type: string;
            payload: components["schemas"]["JsonValue"];
            /** @description the lane of an endpoint with ordering key: messages sharing it are delivered in acceptance order */
            ordering_key?: string;
        };
        CreateConsumerRequest: {
            external_id: string;
            name?: string;
        };
        PortalLinkRequest: {
            frame_origin?: string;
            /** @enum {string} */
            locale?: "ja" | "en";
        };
        CreateEndpointRequest: {
            consumer_id: string;
            url: string;
            event_types?: string[] | null;
            fixed_ip?: boolean;
            description?: string;
            retry?: {
                /**
                 * @description re-sends after the first send; 0 means none
                 * @enum {number}
                 */
                count: 0 | 1 | 2 | 3 | 5 | 7 | 12;
                /** @enum {string} */
                interval: "progressive" | "1m" | "5m" | "30m" | "1h" | "6h";
            };
            compat_signature?: {
                header: string;
                /** @enum {string} */
                content: "body" | "timestamp_body";
                /** @enum {string} */
                encoding: "hex" | "base64";
                prefix?: string;
            } | null;
            /**
             * @description key: deliveries of messages with the same ordering_key are sent one at a time, in acceptance order
             * @enum {string}
             */
            ordering?: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit?: number | null;
            headers?: {
                [key: string]: string;
            } | null;
            tls?: {
                client_certificate: string;
                /** @description write-only: stored sealed, never returned */
                client_key: string;
                /** @description trusted for this endpoint only, besides the public roots */
                server_ca?: string | null;
            } | null;
            auth?: {
                /** @constant */
                type: "oauth2_client_credentials";
                /** @description the token endpoint (https, port 443 or 8443): checked by the same address rules as endpoint URLs */
                token_url: string;
                client_id: string;
                /** @description write-only: stored sealed, never returned; may be left out of a PATCH that keeps token_url and client_id */
                client_secret?: string;
                scope?: string | null;
                audience?: string | null;
                /**
                 * @description client_secret_basic: HTTP Basic (RFC 6749 §2.3.1); client_secret_post: in the form body
                 * @enum {string}
                 */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            transformation?: {
                code: string;
                /** @default true */
                enabled: boolean;
            } | null;
        };
        UpdateEndpointRequest: {
            url?: string;
            event_types?: string[] | null;
            /** @enum {string} */
            status?: "active" | "paused";
            description?: string | null;
            retry?: {
                /**
                 * @description re-sends after the first send; 0 means none
                 * @enum {number}
                 */
                count: 0 | 1 | 2 | 3 | 5 | 7 | 12;
                /** @enum {string} */
                interval: "progressive" | "1m" | "5m" | "30m" | "1h" | "6h";
            } | null;
            compat_signature?: {
                header: string;
                /** @enum {string} */
                content: "body" | "timestamp_body";
                /** @enum {string} */
                encoding: "hex" | "base64";
                prefix?: string;
            } | null;
            /**
             * @description key: deliveries of messages with the same ordering_key are sent one at a time, in acceptance order
             * @enum {string}
             */
            ordering?: "none" | "key";
            /** @description deliveries per second at most, over any one-second window (first attempts, retries and recovery together); null: no limit */
            rate_limit?: number | null;
            headers?: {
                [key: string]: string;
            } | null;
            tls?: {
                client_certificate: string;
                /** @description write-only: stored sealed, never returned */
                client_key: string;
                /** @description trusted for this endpoint only, besides the public roots */
                server_ca?: string | null;
            } | null;
            auth?: {
                /** @constant */
                type: "oauth2_client_credentials";
                /** @description the token endpoint (https, port 443 or 8443): checked by the same address rules as endpoint URLs */
                token_url: string;
                client_id: string;
                /** @description write-only: stored sealed, never returned; may be left out of a PATCH that keeps token_url and client_id */
                client_secret?: string;
                scope?: string | null;
                audience?: string | null;
                /**
                 * @description client_secret_basic: HTTP Basic (RFC 6749 §2.3.1); client_secret_post: in the form body
                 * @enum {string}
                 */
                token_auth_method: "client_secret_basic" | "client_secret_post";
            } | null;
            transformation?: {
                code: string;
                /** @default true */
                enabled: boolean;
            } | null;
            fixed_ip?: boolean;
        };
        SimulateTransformationRequest: {
            event_type: string;
            payload: components["schemas"]["JsonValue"];
            /** @description the code to try; omitted: the endpoint's stored transformation (run even when not enabled) */
            code?: string;
        };
        RecoverRequest: {
            since: number;
        };
        CreateEventTypeRequest: {
            name: string;
            description?: string;
            schema?: {
                [key: string]: components["schemas"]["JsonValue"];
            } | null;
            /** @description up to 5 example payloads (each at most 16384 bytes), each valid against the schema */
            examples?: components["schemas"]["JsonValue"][];
            /**
             * @description enforce: POST /v1/messages refuses a payload that does not match the schema (422); none (the default): not checked
             * @enum {string}
             */
            validation?: "none" | "enforce";
            deprecated?: boolean;
        };
        UpdateEventTypeRequest: {
            description?: string | null;
            schema?: {
                [key: string]: components["schemas"]["JsonValue"];
            } | null;
            /** @description up to 5 example payloads (each at most 16384 bytes), each valid against the schema */
            examples?: components["schemas"]["JsonValue"][];
            /**
             * @description enforce: POST /v1/messages refuses a payload that does not match the schema (422); none (the default): not checked
             * @enum {string}
             */
            validation?: "none" | "enforce";
            deprecated?: boolean;
        };
        AlertConditionsUpdate: {
            /** @enum {string} */
            delivery_failure?: "first" | "5m" | "15m" | "60m";
            automatic_stop?: boolean;
            pending_retries?: 100 | 1000 | 10000;
            usage?: 50 | 80 | 100;
        };
        CreateAlertTargetRequest: {
            /** @constant */
            type: "webhook";
            url: string;
        } | {
            /** @constant */
            type: "chat";
            url: string;
        } | {
            /** @constant */
            type: "email";
            /** Format: email */
            address: string;
        };
        /** @description The body of every webhook: compact JSON in this key order, the exact bytes signed. Parse it only after verifying the signature over the raw bytes. */
        WebhookEvent: {
            /**
             * @description The message’s event type (`event_type` of the send).
             * @example invoice.paid
             */
            type: string;
            /**
             * Format: date-time
             * @description When the message was created (ISO 8601 UTC, milliseconds): the same on every attempt and retry.
             */
            timestamp: string;
            /** @description The message’s payload, exactly as sent. */
            data: components["schemas"]["JsonValue"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request’s id, on every response: yours when you sent an `x-request-id` of 1–128 letters, digits or `. _ : -`, else one Wirehook made. Quote it when asking about a request. */
        "x-request-id": string;
        /** @description Requests per minute allowed for the environment (all its keys together) */
        "x-ratelimit-limit": number;
        /** @description Requests left in the current minute */
        "x-ratelimit-remaining": number;
        /** @description When the current minute ends (Unix seconds) */
        "x-ratelimit-reset": number;
        /** @description Seconds until a request is allowed again */
        "retry-after": number;
        /** @description The organization's live messages this month (UTC) */
        "x-usage-month": number;
    };
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    listMessages: {
        parameters: {
            query?: {
                /** @description the previous page's next_cursor */
                cursor?: string;
                /** @description items per page, 1 to 100 (default 50) */
                limit?: number;
                /** @description only messages with this status */
                status?: "pending" | "retrying" | "success" | "failed";
                /** @description only messages of this event type */
                event_type?: string;
                /** @description part of the message id, event type, consumer external_id or Idempotency-Key */
                q?: string;
                /** @description only messages created at or after it (Unix ms); with a filter and no since, the last 7 days */
                since?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of messages, newest first */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageRowPage"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendMessage: {
        parameters: {
            query?: never;
            header?: {
                /** @description The same key returns the same message id for 24 hours; the first message wins. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consumer": "customer-42",
                 *       "event_type": "invoice.paid",
                 *       "payload": {
                 *         "invoice": 1001,
                 *         "amount": 4200
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["SendMessageRequest"];
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "x-usage-month": components["headers"]["x-usage-month"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D",
                     *       "deliveries": 1
                     *     }
                     */
                    "application/json": components["schemas"]["MessageAccepted"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A plan limit was reached */
            402: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "plan_limit",
                     *       "message": "A plan limit was reached"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMessage: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description message id (msg_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The message */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageDetail"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description delivery id (dlv_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDeliveryAttempts: {
        parameters: {
            query?: {
                /** @description the previous page's next_cursor */
                cursor?: string;
                /** @description items per page, 1 to 100 (default 50) */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description delivery id (dlv_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts, newest first */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AttemptRowPage"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    retryDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description delivery id (dlv_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued */
            202: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Delivery"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with existing data */
            409: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "Conflicts with existing data"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listConsumers: {
        parameters: {
            query?: {
                /** @description the previous page's next_cursor */
                cursor?: string;
                /** @description items per page, 1 to 100 (default 50) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of consumers */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsumerPage"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createConsumer: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "external_id": "customer-42",
                 *       "name": "Globex"
                 *     }
                 */
                "application/json": components["schemas"]["CreateConsumerRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Consumer"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with existing data */
            409: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "Conflicts with existing data"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getConsumer: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description consumer id (con_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The consumer */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Consumer"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPortalLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description consumer id (con_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "frame_origin": "https://dashboard.example.com",
                 *       "locale": "ja"
                 *     }
                 */
                "application/json": components["schemas"]["PortalLinkRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PortalLink"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A plan limit was reached */
            402: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "plan_limit",
                     *       "message": "A plan limit was reached"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEndpoints: {
        parameters: {
            query?: {
                /** @description only this consumer's endpoints (con_…) */
                consumer_id?: string;
                /** @description the previous page's next_cursor */
                cursor?: string;
                /** @description endpoints per page, 1 to 1000 (default 1000) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of endpoints by id */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointList"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "consumer_id": "con_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D",
                 *       "url": "https://hooks.globex.example/wirehook",
                 *       "event_types": [
                 *         "invoice.paid"
                 *       ],
                 *       "retry": {
                 *         "count": 7,
                 *         "interval": "progressive"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["CreateEndpointRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointWithSecret"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointDetail"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "status": "paused"
                 *     }
                 */
                "application/json": components["schemas"]["UpdateEndpointRequest"];
            };
        };
        responses: {
            /** @description The endpoint as changed, with its throughput now */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointUpdated"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEndpointStats: {
        parameters: {
            query?: {
                /** @description how far back: 1h (12 five-minute buckets), 24h (24 hourly, the default) or 7d (28 six-hourly) */
                window?: "1h" | "24h" | "7d";
            };
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint’s health */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EndpointStats"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateEndpointSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedSecret"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    simulateEndpointTransformation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "event_type": "invoice.paid",
                 *       "payload": {
                 *         "invoice_id": "in_1"
                 *       },
                 *       "code": "function handler(webhook) {\n  const { invoice_id, ...rest } = webhook.payload;\n  webhook.payload = { ...rest, invoiceId: invoice_id };\n  return webhook;\n}"
                 *     }
                 */
                "application/json": components["schemas"]["SimulateTransformationRequest"];
            };
        };
        responses: {
            /** @description What a send would do */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TransformationSimulation"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A dependency is unavailable; retry later */
            503: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unavailable",
                     *       "message": "A dependency is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    recoverEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since": 1767225600000
                 *     }
                 */
                "application/json": components["schemas"]["RecoverRequest"];
            };
        };
        responses: {
            /** @description Started */
            202: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with existing data */
            409: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "Conflicts with existing data"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRecovery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description endpoint id (ep_…) */
                id: string;
                /** @description recovery id (rec_…) */
                recovery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recovery */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Recovery"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEgressIps: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The addresses */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EgressIpList"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEventTypes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event types */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeList"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createEventType: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "invoice.paid",
                 *       "description": "An invoice was paid",
                 *       "schema": {
                 *         "type": "object",
                 *         "properties": {
                 *           "invoice": {
                 *             "type": "integer"
                 *           },
                 *           "amount": {
                 *             "type": "integer",
                 *             "minimum": 0
                 *           }
                 *         },
                 *         "required": [
                 *           "invoice",
                 *           "amount"
                 *         ]
                 *       },
                 *       "examples": [
                 *         {
                 *           "invoice": 1001,
                 *           "amount": 4200
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["CreateEventTypeRequest"];
            };
        };
        responses: {
            /** @description Registered */
            201: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with existing data */
            409: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "Conflicts with existing data"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    exportEventCatalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventCatalogDocument"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the event type’s name (invoice.paid) */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event type */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateEventType: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the event type’s name (invoice.paid) */
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "validation": "enforce",
                 *       "deprecated": false
                 *     }
                 */
                "application/json": components["schemas"]["UpdateEventTypeRequest"];
            };
        };
        responses: {
            /** @description The event type as updated */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventType"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Conflicts with existing data */
            409: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "Conflicts with existing data"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listEventTypeVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the event type’s name (invoice.paid) */
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The earlier versions */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventTypeVersionList"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAlertConditions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The conditions */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertConditions"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAlertConditions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "delivery_failure": "15m"
                 *     }
                 */
                "application/json": components["schemas"]["AlertConditionsUpdate"];
            };
        };
        responses: {
            /** @description The conditions as changed */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertConditions"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAlertTargets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The targets */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertTargetList"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAlertTarget: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "chat",
                 *       "url": "https://hooks.slack.example/services/T000/B000/XXXX"
                 *     }
                 */
                "application/json": components["schemas"]["CreateAlertTargetRequest"];
            };
        };
        responses: {
            /** @description Added */
            201: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertTargetCreated"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAlertTarget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description alert target id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The target */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertTargetDetail"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAlertTarget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description alert target id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed */
            204: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    testAlertTarget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description alert target id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The notice and its first try */
            200: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertTest"];
                };
            };
            /** @description Missing, wrong, revoked or expired API key */
            401: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "missing, wrong, revoked or expired API key"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key lacks the scope this operation needs */
            403: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "forbidden",
                     *       "message": "this API key lacks the scope endpoints:write"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Not found (or outside the retention window) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "not_found",
                     *       "message": "Not found (or outside the retention window)"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 1.1 MB */
            413: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "too_large",
                     *       "message": "The request body is larger than 1.1 MB"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Invalid input: the message names the field and what is allowed */
            422: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid",
                     *       "message": "retry.count: must be one of 0, 1, 2, 3, 5, 7, 12"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The environment's requests per minute are used up; retry after `retry-after` seconds */
            429: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    "x-ratelimit-limit": components["headers"]["x-ratelimit-limit"];
                    "x-ratelimit-remaining": components["headers"]["x-ratelimit-remaining"];
                    "x-ratelimit-reset": components["headers"]["x-ratelimit-reset"];
                    "retry-after": components["headers"]["retry-after"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute for this environment reached; retry in 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unexpected server error (500), or a dependency unavailable (503) */
            default: {
                headers: {
                    "x-request-id": components["headers"]["x-request-id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    receiveMessage: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The message id (`msg_…`): the same on every attempt. De-duplicate on it.
                 * @example msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D
                 */
                "webhook-id": string;
                /**
                 * @description When this attempt was sent, in Unix seconds. Part of the signed content.
                 * @example 1767259801
                 */
                "webhook-timestamp": string;
                /**
                 * @description One or more `v1,<base64 HMAC-SHA256>` signatures, space-separated (two for 24 hours after a secret rotation).
                 * @example v1,bAyE+0iJXozzq2ZsgNOC2qRxctAoB6B4XRFMwYYr5VQ=
                 */
                "webhook-signature": string;
                /**
                 * @description Wirehook’s user agent.
                 * @example Wirehook/1
                 */
                "user-agent": "Wirehook/1";
                /**
                 * @description Only on an ordered delivery (an endpoint with `ordering: key` and a message with an `ordering_key`): the message’s `ordering_key`. A key that is not printable ASCII, has spaces at its ends or holds a `%` is sent percent-encoded as UTF-8 (`encodeURIComponent`): `decodeURIComponent` of the header always gives the key.
                 * @example invoice-1001
                 */
                "webhook-ordering-key"?: string;
                /**
                 * @description Only on an ordered delivery, with `webhook-ordering-key`: its place in the lane of that key, 1 for the first message and +1 per message. Delivery n+1 starts only once n has ended, so a receiver that has seen n and gets n+2 knows n+1 ended failed.
                 * @example 2
                 */
                "webhook-sequence"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "invoice.paid",
                 *       "timestamp": "2026-01-01T09:30:00.000Z",
                 *       "data": {
                 *         "invoice": 1001,
                 *         "amount": 4200
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Delivered, when it comes within 15 s: any 2xx ends the delivery as success. The first 1,024 bytes of the body are recorded. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A failed attempt, as is any status but 2xx (and a 3xx: redirects are not followed): retried on the endpoint’s retry policy. */
            "4XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A failed attempt, as is a timeout or a connection failure: retried on the endpoint’s retry policy. */
            "5XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    receiveFailureNotice: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The notice’s id (`ntc_…`): the same on every try.
                 * @example ntc_3f1c2a9b8d7e4f60a1b2c3d4e5f60718
                 */
                "webhook-id": string;
                /**
                 * @description When this try was sent, in Unix seconds. Part of the signed content.
                 * @example 1767259861
                 */
                "webhook-timestamp": string;
                /**
                 * @description `v1,<base64 HMAC-SHA256>` with the alert target’s secret.
                 * @example v1,ek+PKTP1FYIFmMM1+Q/I306g6KfnQFD1P4v2irMwScQ=
                 */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "alert.delivery_failure",
                 *       "timestamp": "2026-01-01T09:31:01.000Z",
                 *       "data": {
                 *         "environments": [
                 *           "live"
                 *         ],
                 *         "endpoints": [
                 *           {
                 *             "id": "ep_01JH4Z5K2M3N4P5Q6R7S8T9V0W",
                 *             "url": "https://hooks.globex.example/wirehook",
                 *             "environment": "live",
                 *             "consumer": {
                 *               "external_id": "customer-42"
                 *             },
                 *             "failing_since": 1767259801000,
                 *             "last_error": "http_status: 500",
                 *             "last_status": 500,
                 *             "message_id": "msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D",
                 *             "delivery_id": "dlv_01JH4Z6Q8S3X8Y4Z6A0B1C2D3E"
                 *           }
                 *         ],
                 *         "summary": "Deliveries to an endpoint are failing:\n- https://hooks.globex.example/wirehook (live, customer customer-42), failing since 2026-01-01T09:30:01.000Z; last attempt: HTTP 500 (message msg_01JH4Z6Q8R2W7X3Y5Z9A0B1C2D, delivery dlv_01JH4Z6Q8S3X8Y4Z6A0B1C2D3E)"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["AlertNotice"];
            };
        };
        responses: {
            /** @description Received: the notice is done. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description A failed try (as are a timeout or a connection failure): retried as described above, and listed on the target. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
