import type { PageProps } from '../routes'
import { ChannelPage, NewChannelPage } from './ChannelPage'
import { ChannelsPage } from './ChannelsPage'

/** The channel pages' entry (app/src/channels/routes.ts): the list, a new channel, or one channel. */
const Channels = ({ params }: PageProps) =>
  params.type ? (
    <NewChannelPage type={params.type} />
  ) : params.id && /^\d+$/.test(params.id) ? (
    <ChannelPage id={Number(params.id)} />
  ) : (
    <ChannelsPage />
  )

export default Channels
