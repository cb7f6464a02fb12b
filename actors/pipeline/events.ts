import { publish, topics } from '../events'

/**
 * `pipeline.changed {lead_id, pipeline_id, reason}` on `ws:{id}` (spec 1 §6), published after the
 * change committed. No content: clients reload through the API, where visibility applies.
 */
export type ChangeReason =
  | 'lead_created'
  | 'lead_updated'
  | 'lead_moved'
  | 'lead_deleted'
  | 'activity'
  | 'file'
  | 'checklist'
  | 'event'
  | 'expense'
  | 'pipeline_created'
  | 'pipeline_updated'
  | 'pipeline_archived'
  | 'pipeline_deleted'
  | 'stages'
  | 'settings'
  | 'imported'

export const pipelineChanged = (
  workspaceId: number,
  leadId: number | null,
  pipelineId: number | null,
  reason: ChangeReason,
) =>
  publish(topics.workspace(workspaceId), 'pipeline.changed', {
    lead_id: leadId,
    pipeline_id: pipelineId,
    reason,
  })
