/**
 * `RunGraph`: a runbook's steps as a directed graph (@xyflow/react), with a
 * table of the same steps under it for screen readers and keyboard users. Edges are each
 * step's `needs` (labelled with the `when_branch` edge below a branch step) and its
 * `on_error: goto:<step>` (dashed). A step sits at its `ui: {x, y}` when the runbook gives
 * one, else in a layer by its depth along `needs`. `states` (step id -> run step status:
 * `pending`, `running`, `ok`, `error`, `skipped`, or a gate's `waiting_approval`,
 * `approved`, `denied`, `expired`) colours each node and writes the status in it.
 * Read-only unless the runbook editor passes `edit` (`GraphEdits`). Reads no API: the
 * steps come from `GET /runbooks/<slug>` or the editor's draft, the states from `GET /runs/<id>`.
 */
import '@xyflow/react/dist/style.css';
import {
  Background,
  type Connection,
  Controls,
  type Edge,
  Handle,
  MarkerType,
  type Node,
  type NodeProps,
  Position,
  ReactFlow,
  useNodesState,
} from '@xyflow/react';
import { useEffect, useMemo } from 'react';
import type { GraphStep } from './api-shapes.ts';
import { useTheme } from './theme.tsx';
import { Badge } from './ui.tsx';

/** Step id -> the step's status in a run. */
export type StepStates = Record<string, string>;

/**
 * What the runbook editor does with a move on the canvas: a new edge from one step's bottom
 * handle to another's top one makes the second need the first, a selected `needs` edge
 * deleted (Backspace or Delete) drops that need, a step dragged is drawn there from now on.
 */
export type GraphEdits = {
  connect: (need: string, step: string) => void;
  disconnect: (need: string, step: string) => void;
  move: (step: string, at: { x: number; y: number }) => void;
};

type StepNode = Node<{ step: GraphStep; status: string | null; editable: boolean }, 'step'>;

const COLUMN_WIDTH = 220;
const LAYER_HEIGHT = 110;

const words = (status: string): string => status.replace(/_/g, ' ');
const describe = (step: GraphStep): string => (step.kind === 'branch' ? 'branch' : (step.action ?? 'action'));

/** Each step's depth along `needs` (0 for a step that needs none). */
function depths(steps: GraphStep[]): Map<string, number> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const depth = new Map<string, number>();
  const visit = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    depth.set(id, 0); // a cycle (which the API refuses) ends here instead of recursing forever
    const needs = byId.get(id)?.needs.filter((need) => byId.has(need)) ?? [];
    const mine = needs.length === 0 ? 0 : 1 + Math.max(...needs.map(visit));
    depth.set(id, mine);
    return mine;
  };
  for (const step of steps) visit(step.id);
  return depth;
}

/**
 * Where each step is drawn: its `ui` position, else centred in its layer. When some steps
 * are placed by the author, the layered ones go to the right of them so none overlap.
 */
function layout(steps: GraphStep[]): Map<string, { x: number; y: number }> {
  const depth = depths(steps);
  const placed = steps.filter((step) => step.ui);
  const offset = placed.length === 0 ? 0 : Math.max(...placed.map((step) => step.ui?.x ?? 0)) + COLUMN_WIDTH * 1.5;
  const layers = new Map<number, string[]>();
  for (const step of steps.filter((s) => !s.ui)) {
    const layer = depth.get(step.id) ?? 0;
    layers.set(layer, [...(layers.get(layer) ?? []), step.id]);
  }
  const positions = new Map<string, { x: number; y: number }>();
  for (const step of placed) if (step.ui) positions.set(step.id, step.ui);
  for (const [layer, ids] of layers) {
    for (const [i, id] of ids.entries()) positions.set(id, { x: offset + (i - (ids.length - 1) / 2) * COLUMN_WIDTH, y: layer * LAYER_HEIGHT });
  }
  return positions;
}

const branchIds = (steps: GraphStep[]): Set<string> => new Set(steps.filter((step) => step.kind === 'branch').map((step) => step.id));

/** A step's `needs` in words, with the edge it waits for below a branch step: `decide (if true), tag`. */
const needsText = (step: GraphStep, branches: Set<string>): string =>
  step.needs.length === 0 ? 'none' : step.needs.map((need) => (branches.has(need) && step.when_branch ? `${need} (if ${step.when_branch})` : need)).join(', ');

/** The edges: `needs` (from the needed step) and `on_error: goto` (from the failing step, dashed). */
function edgesOf(steps: GraphStep[]): Edge[] {
  const ids = new Set(steps.map((step) => step.id));
  const branches = branchIds(steps);
  const edges: Edge[] = [];
  for (const step of steps) {
    for (const need of step.needs.filter((n) => ids.has(n))) {
      const edge = branches.has(need) && step.when_branch ? `if ${step.when_branch}` : undefined;
      edges.push({
        id: `needs:${need}->${step.id}`,
        source: need,
        target: step.id,
        label: edge,
        markerEnd: { type: MarkerType.ArrowClosed },
        ariaLabel: `${step.id} needs ${need}`,
      });
    }
    const target = step.on_error?.kind === 'goto' ? step.on_error.target : undefined;
    if (target && ids.has(target)) {
      edges.push({
        id: `goto:${step.id}->${target}`,
        source: step.id,
        target,
        type: 'smoothstep',
        label: 'on error',
        className: 'graph-edge-goto',
        deletable: false,
        markerEnd: { type: MarkerType.ArrowClosed },
      });
    }
  }
  return edges;
}

/** One step on the canvas: its id, action and (during a run) its status in words. */
function StepNodeView({ data }: NodeProps<StepNode>) {
  const { step, status, editable } = data;
  return (
    <div className={editable ? 'graph-node graph-node-editable' : 'graph-node'} data-testid={`graph-node-${step.id}`} data-status={status ?? undefined}>
      <Handle type="target" position={Position.Top} isConnectable={editable} />
      <strong>{step.id}</strong>
      <span className="graph-node-action">{describe(step)}</span>
      {status && <span className="graph-node-status">{words(status)}</span>}
      <Handle type="source" position={Position.Bottom} isConnectable={editable} />
    </div>
  );
}

const nodeTypes = { step: StepNodeView };

/** The steps as a table: the graph's content for those who cannot see it. */
function StepTable({ steps, states }: { steps: GraphStep[]; states?: StepStates }) {
  const branches = branchIds(steps);
  return (
    <table className="graph-steps">
      <caption>{states ? 'Steps and their status in this run' : 'Steps'}</caption>
      <thead>
        <tr>
          <th scope="col">Step</th>
          <th scope="col">Action</th>
          <th scope="col">Needs</th>
          <th scope="col">On error</th>
          {states && <th scope="col">Status</th>}
        </tr>
      </thead>
      <tbody>
        {steps.map((step) => (
          <tr key={step.id}>
            <td className="mono">{step.id}</td>
            <td>{describe(step)}</td>
            <td>{needsText(step, branches)}</td>
            <td>{step.on_error?.kind === 'goto' ? `go to ${step.on_error.target}` : (step.on_error?.kind ?? 'fail')}</td>
            {states && <td>{states[step.id] ? <Badge kind="status" value={states[step.id] ?? ''} /> : 'not in this run'}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const needsEdge = /^needs:(.+)->(.+)$/;

/**
 * The graph and its table; `label` names the graph for assistive technology. With `edit`,
 * the author drags steps and draws or deletes `needs` edges (`GraphEdits`); the table and the
 * YAML stay the way to do both from the keyboard.
 */
export function RunGraph({
  steps,
  states,
  label = 'Runbook steps as a graph',
  edit,
}: {
  steps: GraphStep[];
  states?: StepStates;
  label?: string;
  edit?: GraphEdits;
}) {
  const editable = edit !== undefined;
  const theme = useTheme();
  const positions = useMemo(() => layout(steps), [steps]);
  const edges = useMemo(() => edgesOf(steps), [steps]);
  const drawn = useMemo<StepNode[]>(
    () =>
      steps.map((step) => ({
        id: step.id,
        type: 'step',
        position: positions.get(step.id) ?? { x: 0, y: 0 },
        data: { step, status: states?.[step.id] ?? null, editable },
      })),
    [steps, states, positions, editable],
  );
  // The canvas moves a dragged node itself; the steps (from the YAML) say where it rests.
  const [nodes, setNodes, onNodesChange] = useNodesState<StepNode>(drawn);
  useEffect(() => setNodes(drawn), [drawn, setNodes]);
  const connect = (connection: Connection) => {
    if (connection.source !== connection.target) edit?.connect(connection.source, connection.target);
  };
  const deleteEdges = (deleted: Edge[]) => {
    for (const edge of deleted) {
      const [, need, step] = needsEdge.exec(edge.id) ?? [];
      if (need && step) edit?.disconnect(need, step);
    }
  };
  return (
    <div className="run-graph">
      <figure className="run-graph-canvas" aria-label={label}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          onNodesChange={editable ? onNodesChange : undefined}
          onNodeDragStop={(_, node) => edit?.move(node.id, node.position)}
          onConnect={connect}
          onEdgesDelete={deleteEdges}
          fitView
          fitViewOptions={{ maxZoom: 1, padding: 0.15 }}
          nodesDraggable={editable}
          nodesConnectable={editable}
          nodesFocusable={editable}
          edgesFocusable={editable}
          elementsSelectable={editable}
          deleteKeyCode={editable ? ['Backspace', 'Delete'] : null}
          colorMode={theme}
        >
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </figure>
      <StepTable steps={steps} states={states} />
    </div>
  );
}
