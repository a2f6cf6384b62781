import type { RefObject } from 'preact';
import { useRef } from 'preact/hooks';
import './code-editor.css';

/**
 * A plain textarea for code with its line numbers beside it (no editor library: CodeMirror or
 * Monaco would be several times the page's whole script). Lines do not wrap, so each number
 * stays beside its line; `markLine` (1-based, an error's) is marked in the numbers by a sign as
 * well as colour. Tab moves focus on, as everywhere on the page: keyboard users are never trapped.
 */
export function CodeEditor(props: {
  id: string;
  value: string;
  onInput: (value: string) => void;
  markLine: number | null;
  textarea: RefObject<HTMLTextAreaElement>;
  describedBy?: string | undefined;
  invalid?: boolean;
  rows?: number;
}) {
  const gutter = useRef<HTMLDivElement>(null);
  const count = props.value.split('\n').length;
  return (
    <div class="code-editor">
      <div class="code-gutter" ref={gutter} aria-hidden="true">
        {Array.from({ length: count }, (_, i) => (
          <span key={i} class={i + 1 === props.markLine ? 'marked' : undefined}>
            {i + 1}
          </span>
        ))}
      </div>
      <textarea
        id={props.id}
        ref={props.textarea}
        rows={props.rows ?? 12}
        value={props.value}
        wrap="off"
        spellcheck={false}
        autocomplete="off"
        autocapitalize="off"
        aria-describedby={props.describedBy || undefined}
        aria-invalid={props.invalid ? 'true' : undefined}
        onInput={(e) => props.onInput(e.currentTarget.value)}
        onScroll={(e) => {
          if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
        }}
      />
    </div>
  );
}

/** Focuses `textarea`, selects its line `line` (1-based, clamped to the lines there are) and scrolls it into view. */
export function showLine(textarea: HTMLTextAreaElement, line: number): void {
  const lines = textarea.value.split('\n');
  const n = Math.min(Math.max(line, 1), lines.length);
  const start = lines.slice(0, n - 1).reduce((sum, text) => sum + text.length + 1, 0);
  textarea.focus();
  textarea.setSelectionRange(start, start + (lines[n - 1]?.length ?? 0));
  const lineHeight = Number.parseFloat(getComputedStyle(textarea).lineHeight) || 20;
  // Two lines of context above it.
  textarea.scrollTop = Math.max(0, (n - 3) * lineHeight);
}
