/**
 * `YamlEditor`: YAML in CodeMirror 6 (a runbook, a custom action's spec), with YAML
 * highlighting, line numbers and the server's validation problems drawn at their lines (a gutter mark and an underline,
 * `@codemirror/lint`). The text is the parent's: `value` in, each keystroke out through
 * `onChange`; a `value` that differs from the editor's (an edit made on the canvas, a draft
 * picked) replaces it. `problems` are `{from, to, msg}` character ranges (yaml-loc.ts `locRange`).
 */
import { yaml } from '@codemirror/lang-yaml';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';

/** A problem to mark: its character range and the server's words (yaml-loc.ts `PlacedProblem` is one). */
export type Problem = { from: number; to: number; msg: string };

/**
 * YAML's colours from the design tokens (styles.css `--code-*`), so the text keeps its
 * contrast in the light and the dark theme alike; CodeMirror's own style is a fallback,
 * used only where no other highlighting is set.
 */
const tokenColours = syntaxHighlighting(
  HighlightStyle.define([
    { tag: tags.comment, color: 'var(--code-comment)', fontStyle: 'italic' },
    { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--code-key)' },
    { tag: [tags.string, tags.special(tags.string), tags.content], color: 'var(--code-string)' },
    { tag: [tags.number, tags.integer, tags.float], color: 'var(--code-number)' },
    { tag: [tags.bool, tags.null, tags.atom, tags.keyword], color: 'var(--code-atom)' },
    { tag: [tags.meta, tags.typeName, tags.labelName, tags.punctuation, tags.separator], color: 'var(--code-meta)' },
  ]),
);

export function YamlEditor({
  value,
  onChange,
  problems,
  readOnly = false,
  label,
}: {
  value: string;
  onChange: (text: string) => void;
  problems: readonly Problem[];
  readOnly?: boolean;
  label: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latestChange = useRef(onChange);
  latestChange.current = onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: made once per mount; value and problems reach it through the effects below
  useEffect(() => {
    if (!host.current) return;
    const made = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          yaml(),
          tokenColours,
          lintGutter(),
          EditorState.readOnly.of(readOnly),
          // An explicit tab stop on the content: axe counts only it, not contenteditable, as the keyboard's way into a scrolled editor.
          EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': 'yaml-editor', tabindex: '0' }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) latestChange.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = made;
    return () => {
      made.destroy();
      view.current = null;
    };
  }, [readOnly, label]);

  useEffect(() => {
    const current = view.current;
    if (!current || current.state.doc.toString() === value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const current = view.current;
    if (!current) return;
    const length = current.state.doc.length;
    const diagnostics: Diagnostic[] = problems.map((problem) => ({
      from: Math.min(problem.from, length),
      to: Math.min(Math.max(problem.to, problem.from), length),
      severity: 'error',
      message: problem.msg,
    }));
    current.dispatch(setDiagnostics(current.state, diagnostics));
  }, [problems]);

  return <div className="yaml-editor" ref={host} />;
}
